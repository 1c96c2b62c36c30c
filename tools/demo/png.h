/* A minimal PNG writer for ortvk-demo's pictures: 8-bit grayscale or RGB, no compression (stored deflate blocks),
 * so it needs no zlib. */
#ifndef ORTVK_DEMO_PNG_H
#define ORTVK_DEMO_PNG_H

#include <stdint.h>

/* Writes width x height pixels of `channels` bytes each (1: gray, 3: RGB), rows top to bottom, to `path`.
 * Returns 0, or -1 with errno set. */
int png_write(const char *path, const uint8_t *pixels, uint32_t width, uint32_t height, int channels);

#endif
