/* Depthwise convolutions (Conv with one input channel per group and as many output channels), recorded for
 * shaders/kernel_depthwise.comp: its form for the window, its tile, and a dispatch that matches the tiles. */
#include <stddef.h>

#include "kernels/kernel_internal.h"

typedef struct push_depthwise {
    uint64_t x, w, b, y, chain;
    uint32_t NC, C, H, W;
    uint32_t OH, OW, KH, KW;
    uint32_t SH, SW, DH, DW;
    int32_t PH, PW;
    uint64_t r; /* the fused chain's residual, or 0 */
} push_depthwise;
_Static_assert(offsetof(push_depthwise, NC) == 40 && offsetof(push_depthwise, r) == 96 && sizeof(push_depthwise) == 104,
               "push_depthwise: the shader's five operands, then its scalars, then its sixth operand");

/* The shader's form (its constant 0): square 3x3 or 5x5 windows of column stride 1 or 2 without dilation whose
 * column pad is half the kernel (1-4), rows read one value at a time where they do not start 16-byte aligned (8),
 * results stored as vec4 where output rows do (16); else the general form (0). Forms 1-4 take a row stride of 1 or
 * 2 too: ORTVK_KVARIANT times it where it differs from the column stride (the shader's constant 1). */
static uint32_t depthwise_form(const push_depthwise *p)
{
    uint32_t form = 0;
    if (p->KH == p->KW && (p->SH == 1 || p->SH == 2) && p->DH == 1 && p->DW == 1 && p->PW == (int32_t)p->KW / 2) {
        if (p->KW == 3) form = p->SW == 1 ? 1 : p->SW == 2 ? 2 : 0;
        if (p->KW == 5) form = p->SW == 1 ? 3 : p->SW == 2 ? 4 : 0;
    }
    if (form != 0 && (p->W % 4 != 0 || p->x % 16 != 0)) form |= 8;
    if (p->OW % 4 == 0 && p->y % 16 == 0 && p->r % 16 == 0) form |= 16;
    if ((form & 7) != 0 && p->SH != p->SW) form += ORTVK_KVARIANT * p->SH;
    return form;
}

OrtStatus *ortvk_kdepthwise_record(ortvk_krun *run, const ortvk_kdepthwise *d, const ortvk_kspec *spec)
{
    push_depthwise push = {
        .x = d->x, .w = d->w, .b = d->b, .y = d->y, .chain = run->chain,
        .NC = d->N * d->C, .C = d->C, .H = d->H, .W = d->W, .OH = d->OH, .OW = d->OW, .KH = d->KH, .KW = d->KW,
        .SH = d->SH, .SW = d->SW, .DH = d->DH, .DW = d->DW, .PH = d->PH, .PW = d->PW, .r = d->r,
    };
    /* The general form's loop runs KH times (1 + the blocks of 16 of KW). */
    if ((uint64_t)d->KH * (1 + (d->KW + 15) / 16) > ORTVK_KMAX_LOOP)
        return ortvk_status(ORT_NOT_IMPLEMENTED, "Conv: a depthwise kernel of %u x %u taps passes the device's loop "
                            "limit", d->KH, d->KW);
    uint32_t form = depthwise_form(&push);
    /* The shader's tile: 16 columns by 4 rows for forms 1-4, 8 columns of one row for the general form. */
    uint32_t columns = (form & 7) != 0 ? 16 : 8, rows = (form & 7) != 0 ? 4 : 1;
    uint64_t tiles = (uint64_t)((d->OH + rows - 1) / rows) * ((d->OW + columns - 1) / columns);
    /* One invocation a tile, channel after channel (the shader's depthwise_tile). */
    uint64_t invocations = tiles * push.NC;
    return ortvk_krun_dispatch_spec(run, ORTVK_SHADER_DEPTHWISE, form, spec, &push, sizeof(push), invocations);
}
