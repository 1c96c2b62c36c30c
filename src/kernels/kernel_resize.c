/* Resize (opsets 10-19; also Upsample 9) in nearest, (n-)linear and bicubic modes with the half_pixel, asymmetric,
 * align_corners, pytorch_half_pixel and tf_half_pixel_for_nn coordinate transforms. The per-dim source indices and
 * weights are computed on the host per run, in float exactly as ORT's CPU EP computes them, and uploaded as a
 * table; the device only gathers and blends. Scales and sizes are constant, or known on the host in the run (made
 * from shapes: kernel_shape_ops.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernel_internal.h"

#define RESIZE_MAX_RANK 4

static bool resize_prepare(const ortvk_knode *node, ortvk_kparams *params, char *why, size_t why_len)
{
    ortvk_kparams_resize *p = &params->resize;
    bool upsample = strcmp(node->op_type, "Upsample") == 0;
    if (node->n_in < 1 || !ortvk_kfloat(node->in[0].type) || node->n_out != 1 ||
        !ortvk_kfloat(node->out[0].type))
        return ortvk_krefuse(why, why_len, "not float");
    int rank = node->in[0].rank;
    if (rank < 1 || rank > RESIZE_MAX_RANK) return ortvk_krefuse(why, why_len, "rank %d", rank);
    p->rank = rank;
    p->upsample = upsample;
    char mode[32], coord[48], nearest[32];
    if (!ortvk_knode_string(node, "mode", mode, sizeof(mode)) ||
        !ortvk_knode_string(node, "coordinate_transformation_mode", coord, sizeof(coord)) ||
        !ortvk_knode_string(node, "nearest_mode", nearest, sizeof(nearest)))
        return ortvk_krefuse(why, why_len, "attribute types");
    if (mode[0] == '\0' || strcmp(mode, "nearest") == 0) p->mode = ORTVK_RESIZE_NEAREST;
    else if (strcmp(mode, "linear") == 0 || strcmp(mode, "bilinear") == 0) p->mode = ORTVK_RESIZE_LINEAR;
    else if (strcmp(mode, "cubic") == 0 && !upsample && node->opset >= 11) p->mode = ORTVK_RESIZE_CUBIC;
    else return ortvk_krefuse(why, why_len, "mode %s", mode);
    if (node->opset < 11) {
        /* Resize-10 and Upsample: asymmetric coordinates, nearest rounds like ORT's "simple" mode. */
        if (coord[0] != '\0' || nearest[0] != '\0') return ortvk_krefuse(why, why_len, "attributes of Resize-11");
        p->coordinate = ORTVK_COORD_ASYMMETRIC;
        p->nearest = ORTVK_NEAREST_SIMPLE;
    } else {
        if (coord[0] == '\0' || strcmp(coord, "half_pixel") == 0) p->coordinate = ORTVK_COORD_HALF_PIXEL;
        else if (strcmp(coord, "asymmetric") == 0) p->coordinate = ORTVK_COORD_ASYMMETRIC;
        else if (strcmp(coord, "align_corners") == 0) p->coordinate = ORTVK_COORD_ALIGN_CORNERS;
        else if (strcmp(coord, "pytorch_half_pixel") == 0) p->coordinate = ORTVK_COORD_PYTORCH_HALF_PIXEL;
        else if (strcmp(coord, "tf_half_pixel_for_nn") == 0) p->coordinate = ORTVK_COORD_TF_HALF_PIXEL_FOR_NN;
        else return ortvk_krefuse(why, why_len, "coordinate_transformation_mode %s", coord);
        if (nearest[0] == '\0' || strcmp(nearest, "round_prefer_floor") == 0)
            p->nearest = ORTVK_NEAREST_ROUND_PREFER_FLOOR;
        else if (strcmp(nearest, "round_prefer_ceil") == 0) p->nearest = ORTVK_NEAREST_ROUND_PREFER_CEIL;
        else if (strcmp(nearest, "floor") == 0) p->nearest = ORTVK_NEAREST_FLOOR;
        else if (strcmp(nearest, "ceil") == 0) p->nearest = ORTVK_NEAREST_CEIL;
        else return ortvk_krefuse(why, why_len, "nearest_mode %s", nearest);
    }
    /* cubic's coefficient and exclude_outside (0 or 1; the CPU EP takes it only in cubic mode). */
    int64_t antialias = 0, exclude = 0;
    p->cubic_a = -0.75f;
    if (!ortvk_knode_float(node, "cubic_coeff_a", -0.75f, &p->cubic_a) || !isfinite(p->cubic_a) ||
        !ortvk_knode_int(node, "exclude_outside", 0, &exclude) || exclude < 0 || exclude > 1 ||
        (exclude == 1 && p->mode != ORTVK_RESIZE_CUBIC))
        return ortvk_krefuse(why, why_len, "cubic_coeff_a or exclude_outside");
    p->exclude_outside = exclude == 1;
    /* Opset 18 options, accepted only at their defaults. */
    char policy[32];
    if (!ortvk_knode_int(node, "antialias", 0, &antialias) || antialias != 0 ||
        !ortvk_knode_string(node, "keep_aspect_ratio_policy", policy, sizeof(policy)) ||
        (policy[0] != '\0' && strcmp(policy, "stretch") != 0) || ortvk_knode_has(node, "axes"))
        return ortvk_krefuse(why, why_len, "antialias, keep_aspect_ratio_policy or axes");
    if (upsample || node->opset < 11) {
        /* (X, scales) for Resize-10 and Upsample-9; Upsample-7 had a scales attribute. */
        int count = 0;
        if (ortvk_knode_floats(node, "scales", p->scales, ORTVK_KMAX_RANK, &count) && count == rank) {
            if (node->n_in != 1) return ortvk_krefuse(why, why_len, "scales twice");
        } else {
            size_t n = 0;
            if (node->n_in != 2 || !ortvk_knode_const_floats(node, 1, p->scales, ORTVK_KMAX_RANK, &n) ||
                n != (size_t)rank)
                return ortvk_krefuse(why, why_len, "scales are not constant");
        }
        p->has_scales = true;
        return true;
    }
    /* Resize-11+: (X, roi, scales, sizes); roi only matters for tf_crop_and_resize (refused above). */
    size_t n = 0;
    if (node->n_in >= 3 && node->in[2].present && ortvk_knode_const_floats(node, 2, p->scales, ORTVK_KMAX_RANK, &n) &&
        n == (size_t)rank) {
        p->has_scales = true;
        if (node->n_in >= 4 && node->in[3].present) return ortvk_krefuse(why, why_len, "both scales and sizes");
        return true;
    }
    if (n != 0) return ortvk_krefuse(why, why_len, "scales of %zu values for rank %d", n, rank);
    bool scales_later = node->n_in >= 3 && node->in[2].present && node->in[2].constant == NULL;
    bool sizes_later = node->n_in >= 4 && node->in[3].present && node->in[3].constant == NULL;
    if (scales_later || sizes_later) { /* the run reads both; the one with `rank` values counts */
        p->runtime = true;
        bool ok = (!scales_later || ortvk_knode_host_numbers(node, 2)) &&
                  (!sizes_later || ortvk_knode_host_ints(node, 3));
        return ok || ortvk_krefuse(why, why_len, "scales or sizes neither constant nor known on the host");
    }
    if (node->n_in < 4 || !node->in[3].present || !ortvk_knode_const_ints(node, 3, p->sizes, ORTVK_KMAX_RANK, &n) ||
        n != (size_t)rank)
        return ortvk_krefuse(why, why_len, "neither constant scales nor constant sizes");
    p->has_scales = false;
    return true;
}

/* Scales or sizes known only in the run: from the host values of inputs 2 and 3 (the one with `rank` values; an
 * empty or absent one is not given, as in ONNX). */
static OrtStatus *runtime_params(const ortvk_kparams_resize *params, const ortvk_krun *run, ortvk_kparams_resize *p)
{
    *p = *params;
    if (!p->runtime) return NULL;
    size_t ns = 0, nz = 0;
    bool scales = run->n_in > 2 && run->in[2].present && run->in[2].count > 0,
         sizes = run->n_in > 3 && run->in[3].present && run->in[3].count > 0;
    if ((scales && !ortvk_krun_host_floats(run, 2, p->scales, ORTVK_KMAX_RANK, &ns)) ||
        (sizes && !ortvk_krun_host_ints(run, 3, p->sizes, ORTVK_KMAX_RANK, &nz)) || scales == sizes ||
        (scales ? ns : nz) != (size_t)p->rank)
        return ortvk_status(ORT_INVALID_ARGUMENT, "Resize: %zu scales and %zu sizes for rank %d (one of them, with "
                            "one value per dim)", run->n_in > 2 ? run->in[2].count : 0,
                            run->n_in > 3 ? run->in[3].count : 0, p->rank);
    p->has_scales = scales;
    return NULL;
}

/* Output dims and the per-dim scale ORT uses in its coordinate transforms. */
/* ORT's CPU EP checks the scales (given, or made from sizes) before it resizes, and fails the run on these: Upsample's
 * must be at least 1, and linear mode takes ranks 2 and 3, and rank 4 only with the outer two scales 1 or the
 * outermost and innermost (ScalesValidation). The same failure here rather than an answer the CPU EP never gives. */
static OrtStatus *check_scales(const ortvk_kparams_resize *p, const float *scale)
{
    for (int d = 0; d < p->rank && p->upsample; d++) {
        if (!(scale[d] >= 1.0f))
            return ortvk_status(ORT_INVALID_ARGUMENT, "Upsample: scales[%d] = %g is below 1", d, (double)scale[d]);
    }
    bool linear_ok = p->rank == 2 || p->rank == 3 ||
                     (p->rank == 4 && scale[0] == 1.0f && (scale[1] == 1.0f || scale[3] == 1.0f));
    if (p->mode == ORTVK_RESIZE_LINEAR && !linear_ok)
        return ortvk_status(ORT_INVALID_ARGUMENT, "%s: linear mode on rank %d takes only scales of 1 on the outer two "
                            "dims, or on the outermost and innermost (scales %g, %g, ...)", p->upsample ? "Upsample" :
                            "Resize", p->rank, (double)scale[0], (double)(p->rank > 1 ? scale[1] : 0.0f));
    bool cubic_ok = p->rank == 2 || (p->rank == 4 && scale[0] == 1.0f && scale[1] == 1.0f);
    if (p->mode == ORTVK_RESIZE_CUBIC && !cubic_ok)
        return ortvk_status(ORT_INVALID_ARGUMENT, "Resize: cubic mode takes rank 2, or rank 4 with scales of 1 on the "
                            "outer two dims (rank %d, scales %g, %g, ...)", p->rank, (double)scale[0],
                            (double)(p->rank > 1 ? scale[1] : 0.0f));
    return NULL;
}

static OrtStatus *resize_plan(const ortvk_kparams_resize *params, const ortvk_krun *run, int64_t *out, float *scale)
{
    ortvk_kparams_resize q;
    const ortvk_kparams_resize *p = &q;
    const ortvk_ktensor *x = &run->in[0];
    ORTVK_TRY(runtime_params(params, run, &q));
    if ((int)x->rank != p->rank) return ortvk_status(ORT_INVALID_ARGUMENT, "Resize: X of rank %zu", x->rank);
    for (int d = 0; d < p->rank; d++) {
        if (p->has_scales) {
            if (!(p->scales[d] > 0.0f)) return ortvk_status(ORT_INVALID_ARGUMENT, "Resize: scale %g", p->scales[d]);
            scale[d] = p->scales[d];
            float o = p->scales[d] * (float)x->dims[d];
            if (!(o < 9.2e18f)) /* converting a larger float to int64_t is undefined */
                return ortvk_status(ORT_INVALID_ARGUMENT, "Resize: scales[%d] = %g on a dim of %lld overflows", d,
                                    p->scales[d], (long long)x->dims[d]);
            out[d] = (int64_t)o;
        } else {
            if (p->sizes[d] < 0) return ortvk_status(ORT_INVALID_ARGUMENT, "Resize: negative size");
            /* The CPU EP makes sizes scales and rejects a scale of 0 (ScalesValidation) rather than answer empty. */
            if (p->sizes[d] == 0 && x->dims[d] > 0)
                return ortvk_status(ORT_INVALID_ARGUMENT, "Resize: sizes[%d] = 0 on a dim of %lld (a scale of 0)", d,
                                    (long long)x->dims[d]);
            out[d] = p->sizes[d];
            scale[d] = x->dims[d] == 0 ? 1.0f : (float)p->sizes[d] / (float)x->dims[d];
        }
    }
    return check_scales(p, scale);
}

static OrtStatus *resize_shape(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_ktensor *x = &run->in[0];
    ortvk_ktensor *y = &run->out[0];
    float scale[ORTVK_KMAX_RANK];
    ORTVK_TRY(resize_plan(&params->resize, run, y->dims, scale));
    y->type = x->type;
    y->rank = x->rank;
    return NULL;
}

/* ORT's get_original_coordinate, in float. */
static float original(int coordinate, float x, float scale, float out_len, float in_len)
{
    switch (coordinate) {
    case ORTVK_COORD_HALF_PIXEL: return ((x + 0.5f) / scale) - 0.5f;
    case ORTVK_COORD_PYTORCH_HALF_PIXEL: return out_len > 1 ? (x + 0.5f) / scale - 0.5f : 0.0f;
    case ORTVK_COORD_TF_HALF_PIXEL_FOR_NN: return (x + 0.5f) / scale;
    case ORTVK_COORD_ALIGN_CORNERS: return out_len == 1 ? 0.0f : x * (in_len - 1) / (out_len - 1);
    default: return x / scale; /* asymmetric */
    }
}

/* ORT's get_nearest_pixel. */
static int64_t nearest_pixel(int mode, float x, bool downsampling)
{
    switch (mode) {
    case ORTVK_NEAREST_ROUND_PREFER_CEIL:
        if (x == (float)(int64_t)x + 0.5f) return (int64_t)ceilf(x);
        return (int64_t)roundf(x);
    case ORTVK_NEAREST_FLOOR: return (int64_t)floorf(x);
    case ORTVK_NEAREST_CEIL: return (int64_t)ceilf(x);
    case ORTVK_NEAREST_SIMPLE: return downsampling ? (int64_t)ceilf(x) : (int64_t)x;
    default: /* round_prefer_floor */
        if (x == (float)(int64_t)x + 0.5f) return (int64_t)x;
        return (int64_t)roundf(x);
    }
}

/* The dims ORT's CPU EP blends in linear mode: it runs a bilinear kernel over both dims of a 2-D input and over
 * H, W of a 4-D one (N, H, W of NHWC when scales[1] != 1), a trilinear one over all dims of a 3-D input (C, H, W
 * of a 5-D one, which ortvk does not take). It multiplies every neighbour by its weight, a weight of 0 too (an
 * unscaled dim still blends its pixel with the next: 0 * NaN is NaN), so ortvk blends exactly those dims. Other
 * ranks: the dims whose scale is not 1 (ORT refuses them). */
static void resize_blended(const ortvk_kparams_resize *p, const float *scale, bool *blended)
{
    for (int d = 0; d < p->rank; d++) blended[d] = false;
    if (p->mode != ORTVK_RESIZE_LINEAR) return;
    bool all = true;
    for (int d = 0; d < p->rank; d++) all = all && scale[d] == 1.0f;
    if (all) return; /* every scale 1 (resize_record copies an input whose dims the output keeps) */
    if (p->rank == 2 || p->rank == 3) {
        for (int d = 0; d < p->rank; d++) blended[d] = true;
    } else if (p->rank == 4) {
        int first = scale[1] == 1.0f ? 2 : 1; /* NCHW, else NHWC */
        blended[first] = blended[first + 1] = true;
    }
}

typedef struct entry {
    uint32_t i0, i1;
    float w0, w1;
} entry;

typedef struct push_resize {
    uint64_t x, y, table;
    uint32_t n;
    uint32_t in_dims[4], out_dims[4], offset[4];
    float inv[4];
} push_resize;

/* Output index `o` of a dim of `in_len` -> `out_len` (scale `scale`): its input index (two and their weights when
 * `linear`), as ORT's CPU kernels find them. */
static void table_entry(const ortvk_kparams_resize *p, float scale, int64_t in_len, int64_t out_len, int64_t o,
                        bool identity, bool linear, entry *e)
{
    /* ORT's linear kernels take an unscaled dim's coordinate as is (tf_half_pixel_for_nn would shift it). */
    float c = scale == 1.0f ? (float)o : original(p->coordinate, (float)o, scale, (float)out_len, (float)in_len);
    if (identity) {
        e->i0 = e->i1 = (uint32_t)o;
        e->w0 = 1.0f;
    } else if (!linear) {
        int64_t i = nearest_pixel(p->nearest, c, scale < 1.0f);
        if (i < 0) i = 0;
        if (i > in_len - 1) i = in_len - 1;
        e->i0 = e->i1 = (uint32_t)i;
        e->w0 = 1.0f;
    } else {
        /* ORT's linear: clamp into the input, neighbours i1 = floor, i2 = i1 + 1 (clamped), and weights |c - i2|
         * for i1 and |c - i1| for i2; 0.5 each when both are the same pixel. */
        c = fmaxf(0.0f, fminf(c, (float)(in_len - 1)));
        int64_t i1 = (int64_t)c;
        if (i1 > in_len - 1) i1 = in_len - 1;
        int64_t i2 = i1 + 1 < in_len ? i1 + 1 : in_len - 1;
        float d1 = fabsf(c - (float)i1), d2 = fabsf(c - (float)i2);
        if (i1 == i2) d1 = d2 = 0.5f;
        e->i0 = (uint32_t)i1;
        e->i1 = (uint32_t)i2;
        e->w0 = d2;
        e->w1 = d1;
    }
}

/* ORT's GetCubicCoeffs (Keys' kernel with coefficient a), in float. */
static void cubic_coeffs(float s, float a, float c[4])
{
    float t = fabsf(s);
    c[0] = ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a;
    c[1] = ((a + 2) * t - (a + 3)) * t * t + 1;
    c[2] = ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1;
    c[3] = ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a;
}

/* One output coordinate of a cubic dim: its four input indices (clamped into the input, as ORT's
 * GetDataForCoordinate does), their coefficients (0 outside the input with exclude_outside) and their sum (1
 * without). Along the last dim the coefficients are stored divided by the sum, as ORT's horizontal pass multiplies
 * them; along the other, as they are, with the sum, as its vertical pass divides by it. */
typedef struct cubic_entry {
    uint32_t index[4];
    float weight[4];
    float sum;
} cubic_entry;

static void cubic_entry_of(const ortvk_kparams_resize *p, float scale, int64_t in_len, int64_t out_len, int64_t o,
                           bool last, cubic_entry *e)
{
    float c = scale == 1.0f ? (float)o : original(p->coordinate, (float)o, scale, (float)out_len, (float)in_len);
    float base = floorf(c), coeff[4];
    cubic_coeffs(c - base, p->cubic_a, coeff);
    e->sum = 1.0f;
    if (p->exclude_outside) {
        e->sum = 0.0f;
        for (int k = 0; k < 4; k++) {
            float at = base - 1.0f + (float)k;
            if (at < 0.0f || at >= (float)in_len) coeff[k] = 0.0f;
            e->sum += coeff[k];
        }
    }
    for (int k = 0; k < 4; k++) {
        double at = (double)base - 1.0 + k;
        e->index[k] = (uint32_t)(at < 0 ? 0 : at > (double)(in_len - 1) ? (double)(in_len - 1) : at);
        e->weight[k] = last ? coeff[k] / e->sum : coeff[k];
    }
}

/* Bicubic over the last two dims (the padded dims 2 and 3), the outer ones mapped onto themselves (check_scales). */
static OrtStatus *resize_record_cubic(const ortvk_kparams_resize *p, ortvk_krun *run, push_resize *push,
                                      const float *scale)
{
    const ortvk_ktensor *x = &run->in[0];
    size_t entries = (size_t)push->out_dims[2] + push->out_dims[3];
    cubic_entry *table = calloc(entries, sizeof(*table));
    if (table == NULL) return ortvk_status(ORT_FAIL, "out of host memory for a Resize table");
    push->offset[2] = 0;
    push->offset[3] = push->out_dims[2];
    for (int pd = 2; pd < 4; pd++) {
        int d = pd - (RESIZE_MAX_RANK - p->rank);
        for (uint32_t o = 0; o < push->out_dims[pd]; o++)
            cubic_entry_of(p, scale[d], x->dims[d], push->out_dims[pd], o, pd == 3, &table[push->offset[pd] + o]);
    }
    _Static_assert(sizeof(cubic_entry) == 9 * sizeof(uint32_t), "the shader reads 9 words an entry");
    OrtStatus *status = ortvk_krun_upload(run, table, entries * sizeof(*table), &push->table);
    free(table);
    ORTVK_TRY(status);
    return ortvk_krun_dispatch_fn(run, ORTVK_SHADER_RESIZE, 6 * ORTVK_KVARIANT, push, sizeof(*push), push->n);
}

/* Whether the tables of the padded dims 2 and 3 map output index o to o / k for a whole factor k each (nearest, dims 0
 * and 1 unchanged), with output rows of a multiple of 4. Dims below `pad` are the padding: no table. */
static bool resize_whole_factors(const push_resize *push, const entry *table, uint32_t interp, uint32_t same, int pad)
{
    if (interp != 0 || same < 2 || push->out_dims[3] % 4 != 0) return false;
    for (int pd = pad > 2 ? pad : 2; pd < RESIZE_MAX_RANK; pd++) {
        uint32_t in = push->in_dims[pd], out = push->out_dims[pd];
        if (in == 0 || out % in != 0) return false;
        for (uint32_t o = 0; o < out; o++) {
            if (table[push->offset[pd] + o].i0 != o / (out / in)) return false;
        }
    }
    return true;
}

static OrtStatus *resize_record(const ortvk_kparams *params, ortvk_krun *run)
{
    const ortvk_kparams_resize *p = &params->resize;
    const ortvk_ktensor *x = &run->in[0], *y = &run->out[0];
    int64_t out[ORTVK_KMAX_RANK];
    float scale[ORTVK_KMAX_RANK];
    ORTVK_TRY(resize_plan(p, run, out, scale));
    if (x->count == 0) return ortvk_status(ORT_INVALID_ARGUMENT, "Resize of an empty input to a non-empty output");
    /* ORT's CPU EP copies the input whenever the output has its dims, whatever the scales say (a scale of 1.2 on a
     * dim of 4 makes 4): so does ortvk, rather than resample by 1.2. */
    if (memcmp(out, x->dims, x->rank * sizeof(int64_t)) == 0)
        return ortvk_krun_copy(run, y->address, x->address, x->count * ortvk_element_size(x->type));
    if (y->count > UINT32_MAX)
        return ortvk_status(ORT_EP_FAIL, "Resize: an output of %zu elements (the shader indexes with 32 bits)",
                            y->count);
    push_resize push = {.x = x->address, .y = y->address, .n = (uint32_t)y->count};
    if (p->mode == ORTVK_RESIZE_CUBIC) {
        int pad = RESIZE_MAX_RANK - p->rank;
        for (int pd = 0; pd < RESIZE_MAX_RANK; pd++) {
            push.in_dims[pd] = pd < pad ? 1 : (uint32_t)x->dims[pd - pad];
            push.out_dims[pd] = pd < pad ? 1 : (uint32_t)out[pd - pad];
        }
        return resize_record_cubic(p, run, &push, scale);
    }
    size_t entries = 0; /* each out[d] <= y->count < 2^32 */
    for (int d = 0; d < p->rank; d++) entries += (size_t)out[d];
    entry *table = calloc(entries, sizeof(*table));
    if (table == NULL) return ortvk_status(ORT_FAIL, "out of host memory for a Resize table");
    uint32_t interp = 0, same = 0; /* the shader's constants INTERP and SAME */
    bool leading = true;
    /* The shader works on 4 dims: the rank is padded with leading dims of 1 (pd is the padded dim). */
    int pad = RESIZE_MAX_RANK - p->rank;
    for (int d = 0; d < pad; d++) push.in_dims[d] = push.out_dims[d] = 1;
    uint32_t same0 = (uint32_t)pad;
    bool blended[RESIZE_MAX_RANK];
    resize_blended(p, scale, blended);
    size_t at = 0;
    for (int d = 0; d < p->rank; d++) {
        int64_t in_len = x->dims[d], out_len = out[d];
        int pd = d + pad;
        push.in_dims[pd] = (uint32_t)in_len;
        push.out_dims[pd] = (uint32_t)out_len;
        push.offset[pd] = (uint32_t)at;
        /* A dim mapped onto itself needs no table when ORT's linear kernel does not blend it either (the leading
         * ones need none at all). */
        bool identity = in_len == out_len && scale[d] == 1.0f;
        bool linear = p->mode == ORTVK_RESIZE_LINEAR && (blended[d] || !identity);
        identity = identity && !linear;
        if (linear) interp |= 1u << (RESIZE_MAX_RANK - 1 - pd);
        leading = leading && identity;
        if (leading) same = (uint32_t)pd + 1;
        for (int64_t o = 0; o < out_len; o++, at++)
            table_entry(p, scale[d], in_len, out_len, o, identity, linear, &table[at]);
    }
    /* Nearest upsampling of the last two dims by exactly 2, the others unchanged: the shader's SAME = 5, no table. */
    bool up2 = interp == 0 && (same >= 2 || same0 >= 2) && x->address % 16 == 0 && y->address % 16 == 0 &&
               push.in_dims[3] % 4 == 0;
    for (int pd = 2; pd < RESIZE_MAX_RANK && up2; pd++) {
        up2 = push.out_dims[pd] == 2 * push.in_dims[pd];
        for (uint32_t o = 0; o < push.out_dims[pd] && up2; o++) up2 = table[push.offset[pd] + o].i0 == o / 2;
    }
    if (up2) {
        free(table);
        uint64_t blocks = (uint64_t)push.in_dims[0] * push.in_dims[1] * push.in_dims[2] * (push.in_dims[3] / 4);
        return ortvk_krun_dispatch_fn(run, ORTVK_SHADER_RESIZE, 5 * ORTVK_KVARIANT, &push, sizeof(push), blocks);
    }
    /* Nearest upsampling of the last two dims by whole factors, the others unchanged, output rows of a multiple of 4:
     * the shader's SAME = 7, no table (the factors in offset[2], offset[3]). */
    if (resize_whole_factors(&push, table, interp, same > same0 ? same : same0, pad) && y->address % 16 == 0) {
        free(table);
        push.offset[2] = push.out_dims[2] / push.in_dims[2];
        push.offset[3] = push.out_dims[3] / push.in_dims[3];
        uint64_t rows = (uint64_t)push.in_dims[0] * push.in_dims[1] * push.in_dims[2];
        return ortvk_krun_dispatch_fn(run, ORTVK_SHADER_RESIZE, 7 * ORTVK_KVARIANT, &push, sizeof(push),
                                      rows * ((push.out_dims[3] + 15) / 16));
    }
    OrtStatus *status = ortvk_krun_upload(run, table, entries * sizeof(*table), &push.table);
    free(table);
    ORTVK_TRY(status);
    if (same < same0) same = same0;
    for (int d = 0; d < RESIZE_MAX_RANK; d++) push.inv[d] = push.out_dims[d] ? 1.0f / (float)push.out_dims[d] : 0.0f;
    if (y->count >= (1u << 24)) interp |= 16; /* the shader's BIG: exact integer division */
    return ortvk_krun_dispatch_fn(run, ORTVK_SHADER_RESIZE, interp + same * ORTVK_KVARIANT, &push, sizeof(push),
                                  y->count);
}

const ortvk_kop ortvk_kops_resize[] = {
    {"Resize", 10, 19,
     "antialias coordinate_transformation_mode cubic_coeff_a exclude_outside extrapolation_value "
     "keep_aspect_ratio_policy mode nearest_mode",
     0xE, resize_prepare, resize_shape, resize_record},
    {"Upsample", 9, 9, "mode", 0x2, resize_prepare, resize_shape, resize_record},
    {NULL, 0, 0, NULL, 0, NULL, NULL, NULL},
};
