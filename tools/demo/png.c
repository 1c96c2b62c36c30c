/* PNG encoding for ortvk-demo: signature, IHDR, one IDAT holding a zlib stream of stored (uncompressed) deflate
 * blocks, IEND. Each chunk carries a CRC-32; the zlib stream ends with an Adler-32 of the raw scanlines. */
#include "png.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
    static uint32_t table[256];
    if (table[1] == 0) { /* reflected polynomial 0xEDB88320, as PNG and zlib use */
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
    }
    crc = ~crc;
    for (size_t i = 0; i < n; i++) crc = table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

/* length, type, data, CRC of type + data */
static int write_chunk(FILE *f, const char type[4], const uint8_t *data, uint32_t len)
{
    uint8_t head[8], tail[4];
    put32(head, len);
    memcpy(head + 4, type, 4);
    uint32_t crc = crc32_update(crc32_update(0, (const uint8_t *)type, 4), data, len);
    put32(tail, crc);
    bool ok = fwrite(head, 1, 8, f) == 8 && (len == 0 || fwrite(data, 1, len, f) == len) && fwrite(tail, 1, 4, f) == 4;
    return ok ? 0 : -1;
}

int png_write(const char *path, const uint8_t *pixels, uint32_t width, uint32_t height, int channels)
{
    /* The raw image: each row is a filter byte (0: none) and the row's pixels. */
    size_t row = 1 + (size_t)width * (size_t)channels, raw_len = row * height;
    /* zlib stream: 2-byte header, stored blocks of at most 65535 bytes (5-byte header each), Adler-32. */
    size_t blocks = (raw_len + 65534) / 65535;
    size_t z_len = 2 + raw_len + 5 * blocks + 4;
    if ((channels != 1 && channels != 3) || width == 0 || height == 0 || width > 0xFFFFFF || height > 0xFFFFFF ||
        z_len > 0x7FFFFFFF) { /* PNG chunks hold at most 2^31 - 1 bytes */
        errno = EINVAL;
        return -1;
    }
    uint8_t *z = malloc(z_len);
    if (z == NULL) return -1;

    uint8_t *out = z;
    *out++ = 0x78, *out++ = 0x01; /* deflate, 32 KiB window, no dictionary; (0x78 << 8 | 0x01) % 31 == 0 */
    uint32_t a = 1, b = 0;        /* Adler-32 */
    size_t left_in_block = 0, raw_left = raw_len;
    for (uint32_t y = 0; y < height; y++) {
        for (size_t x = 0; x < row; x++) {
            if (left_in_block == 0) { /* start a stored block: BFINAL, BTYPE=00, LEN, NLEN */
                left_in_block = raw_left < 65535 ? raw_left : 65535;
                *out++ = raw_left == left_in_block ? 1 : 0;
                *out++ = (uint8_t)left_in_block, *out++ = (uint8_t)(left_in_block >> 8);
                *out++ = (uint8_t)~left_in_block, *out++ = (uint8_t)(~left_in_block >> 8);
            }
            uint8_t v = x == 0 ? 0 : pixels[(size_t)y * width * channels + x - 1];
            *out++ = v;
            a = (a + v) % 65521, b = (b + a) % 65521;
            left_in_block--, raw_left--;
        }
    }
    put32(out, b << 16 | a);

    uint8_t ihdr[13];
    put32(ihdr, width);
    put32(ihdr + 4, height);
    ihdr[8] = 8;                       /* bits per channel */
    ihdr[9] = channels == 3 ? 2 : 0;   /* colour type: RGB or grayscale */
    ihdr[10] = ihdr[11] = ihdr[12] = 0; /* deflate, adaptive filtering, no interlace */

    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    FILE *f = fopen(path, "wb");
    bool ok = f != NULL && fwrite(signature, 1, 8, f) == 8 && write_chunk(f, "IHDR", ihdr, 13) == 0 &&
             write_chunk(f, "IDAT", z, (uint32_t)z_len) == 0 && write_chunk(f, "IEND", NULL, 0) == 0;
    int saved = errno;
    if (f != NULL && fclose(f) != 0) ok = false;
    free(z);
    errno = ok ? 0 : (saved ? saved : EIO);
    return ok ? 0 : -1;
}
