/* ortvk-bench --ops: single ops (Conv 3x3 / 1x1 / depthwise, MatMul, element-wise) on ortvk and on ORT's CPU EP,
 * interleaved in one process. Each op runs as a chain of 1 and of CHAIN nodes; the difference of the two medians
 * divided by CHAIN - 1 is one node's time without the copies of the graph's input and output. On a fast device
 * that difference can be smaller than the Runs' own jitter (the copies dominate), even negative: such a figure is
 * printed as an upper estimate ("<"), never as a negative time or rate (node_of). */
#include <math.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "onnx_proto.h"

#define CHAIN 4

typedef struct op_spec {
    const char *name, *label;
    int rank;
    int64_t dims[4];
    double work; /* FLOPs per node (GFLOP/s), or elements (ns/element) when `elementwise` */
    bool elementwise;
} op_spec;

static const op_spec specs[] = {
    {"conv3x3", "Conv 3x3 64->64 160x160", 4, {1, 64, 160, 160}, 2.0 * 64 * 64 * 9 * 160 * 160, false},
    {"conv1x1", "Conv 1x1 64->64 160x160", 4, {1, 64, 160, 160}, 2.0 * 64 * 64 * 160 * 160, false},
    /* A node here is a QLinearConv of uint8 activations and weights (the first preceded by a QuantizeLinear of x,
     * the last followed by a DequantizeLinear into y): a quantized model's 3x3 layer. qmatmul: the same with
     * QLinearMatMul; qdw3x3 with a depthwise QLinearConv. */
    {"qconv3x3", "QLinearConv 3x3 64->64 56x56 uint8", 4, {1, 64, 56, 56}, 2.0 * 64 * 64 * 9 * 56 * 56, false},
    {"qmatmul", "QLinearMatMul 256x256x256 uint8", 2, {256, 256}, 2.0 * 256 * 256 * 256, false},
    {"qdw3x3", "QLinearConv depthwise 3x3 128 ch 56x56", 4, {1, 128, 56, 56}, 2.0 * 128 * 9 * 56 * 56, false},
    /* qconv3x3's layers in the form of ORT's quantizer: DequantizeLinear of the input, the weights and the bias ->
     * Conv -> QuantizeLinear, which both EPs run as one QLinearConv. */
    {"qdqconv3x3", "QDQ Conv 3x3 64->64 56x56 uint8", 4, {1, 64, 56, 56}, 2.0 * 64 * 64 * 9 * 56 * 56, false},
    /* The recognizer's largest pointwise Convs: many channels over few pixels. */
    {"conv480", "Conv 1x1 480->480 6x80", 4, {1, 480, 6, 80}, 2.0 * 480 * 480 * 6 * 80, false},
    /* A node here is a pair, a pointwise Conv and a residual Add of its input (fused into the GEMM's stores). */
    {"convres", "Conv 1x1 64->64 160x160 + x", 4, {1, 64, 160, 160}, 2.0 * 64 * 64 * 160 * 160, false},
    /* A node here is a pair, a pointwise Conv of few input channels as the detector's Conv.2 (16 -> 32 at 320x320,
     * then hard-swish: x * HardSigmoid(x)) and a pointwise Conv 32 -> 16 back; the rate counts both Convs' FLOPs. */
    {"pwsmall", "Conv 1x1 16->32->16 320x320 hswish", 4, {1, 16, 320, 320}, 2 * 2.0 * 16 * 32 * 320 * 320,
     false},
    /* Silero VAD's encoder: 1-D Convs over a few frames, where the work is too small to fill the device. */
    {"conv1d", "Conv 1-D k3 128->128 over 3 frames", 3, {1, 128, 3}, 2.0 * 128 * 128 * 3 * 3, false},
    /* Silero VAD's decoder: an LSTM of one time step, input and hidden 128; chained by Y_h ([1, 1, 128]). */
    {"lstm", "LSTM 1 step, 128 -> 128 (Y_h)", 3, {1, 1, 128}, 2.0 * 2 * 4 * 128 * 128, false},
    {"dw3x3", "Conv depthwise 3x3 128 ch 160x160", 4, {1, 128, 160, 160}, 2.0 * 128 * 9 * 160 * 160, false},
    {"matmul", "MatMul 1024x1024x1024", 2, {1024, 1024}, 2.0 * 1024 * 1024 * 1024, false},
    {"add", "Add 16M (same-shape constant)", 1, {16 << 20}, 16 << 20, true},
    /* By a row rather than a scalar: Mul by a constant scalar is a step of a fused chain (the 4 nodes would be one
     * dispatch). */
    {"mul", "Mul 4096x4096 by a [4096] row", 2, {4096, 4096}, 16 << 20, true},
    /* A squeeze-excitation scale: each channel's plane times that channel's constant ([1, C, 1, 1]). */
    {"mulch", "Mul 96x160x160 by [1,96,1,1]", 4, {1, 96, 160, 160}, 96.0 * 160 * 160, true},
    {"sigmoid", "Sigmoid 16M", 1, {16 << 20}, 16 << 20, true},
    /* The recognizer's CTC head: 40 rows of 6,625 classes (rows not of whole vec4s). */
    {"softmax", "Softmax 40x6625", 2, {40, 6625}, 40.0 * 6625, true},
    /* Each plane's rows and columns swapped (perm 0, 1, 3, 2): a strided copy whose reads step a row at a time. */
    {"transpose", "Transpose 96x160x160 perm 0,1,3,2", 4, {1, 96, 160, 160}, 96.0 * 160 * 160, true},
    /* A node here is a pair, the squeeze-excitation's pool and scale without its 1x1 convs:
     * x * GlobalAveragePool(x). */
    {"se", "GlobalAveragePool + Mul 96x80x80", 4, {1, 96, 80, 80}, 96.0 * 80 * 80, true},
    /* A node here is one GlobalAveragePool of the input x (the detector's largest), their results summed into y
     * ([1, 96, 1, 1]); the sessions run no graph optimizations, whose CSE would make the nodes one. */
    {"gap", "GlobalAveragePool 96x160x160", 4, {1, 96, 160, 160}, 96.0 * 160 * 160, true},
    /* A node here is the detector's neck (RSE-FPN) on one level: s = GlobalAveragePool(v) (the squeeze-excitation's
     * scale without its 1x1 convs), v + v * s, + the model's input x (the upper level, a full-size tensor): a
     * chain of two broadcast operands (GAP, then Mul+Add+Add) where fused, four kernels apart. */
    {"neck", "GAP, Mul, Add, Add (+x) 96x160x160", 4, {1, 96, 160, 160}, 96.0 * 160 * 160, true},
    /* A node here is a pair, 80x80 -> 40x40 -> 80x80 (the detector's FPN upsampling is 40x40 -> 80x80 nearest):
     * per element of both outputs. */
    {"resize", "Resize nearest 96x80x80 down+up", 4, {1, 96, 80, 80}, 96.0 * (80 * 80 + 40 * 40), true},
    {"resizelin", "Resize linear 96x80x80 down+up", 4, {1, 96, 80, 80}, 96.0 * (80 * 80 + 40 * 40), true},
    /* A node here is a pair, the detector's DB-head upsampling (ConvTranspose 2x2 stride 2, 24 -> 24 channels,
     * 80x80 -> 160x160) then a Resize nearest back to 80x80; the rate counts the ConvTranspose's FLOPs. */
    {"convt2x2", "ConvTranspose 2x2/2 24->24 80x80 + Resize down", 4, {1, 24, 80, 80}, 2.0 * 24 * 24 * 4 * 80 * 80,
     false},
    /* A node here is the detector's head upsampling: ConvTranspose 2x2 stride 2 (24 -> 24 channels, 160x160 ->
     * 320x320, no bias), + a [1, 24, 1, 1] constant, BatchNormalization, Relu (fused into the ConvTranspose's
     * stores), then a Resize nearest back to 160x160; the rate counts the ConvTranspose's FLOPs. */
    {"head", "ConvT 2x2/2 24->24 160x160 +b BN Relu + Resize down", 4, {1, 24, 160, 160},
     2.0 * 24 * 24 * 4 * 160 * 160, false},
    /* A node here is a pair, a depthwise Conv and a residual Add of its input (fused into the Conv's stores). */
    {"dwres", "Conv depthwise 3x3 128 ch 160x160 + x", 4, {1, 128, 160, 160}, 2.0 * 128 * 9 * 160 * 160, false},
    /* A node here is a pair, the detector's first Conv (3 -> 16 channels, 3x3, stride 2, pads 1, 640x640 ->
     * 320x320) then a ConvTranspose 2x2 stride 2 back to 3 x 640x640; the rate counts the Conv's FLOPs. */
    {"stem", "Conv 3->16 3x3/2 640x640 + ConvT back", 4, {1, 3, 640, 640}, 2.0 * 16 * 3 * 9 * 320 * 320, false},
};

static float frand(uint32_t *seed)
{
    *seed = *seed * 1664525u + 1013904223u;
    return (float)((*seed >> 8) & 0xffffff) / 16777216.0f * 2.0f - 1.0f;
}

static void add_random(onnx_model *m, const char *name, int rank, const int64_t *dims, float scale, uint32_t *seed)
{
    size_t n = 1;
    for (int i = 0; i < rank; i++) n *= (size_t)dims[i];
    float *v = malloc(n * sizeof(float) + 4);
    for (size_t i = 0; i < n; i++) v[i] = frand(seed) * scale;
    onnx_model_add_initializer(m, name, ONNX_FLOAT, rank, dims, v, n * sizeof(float));
    free(v);
}

/* `length` nodes of `s` in a chain x -> v1 -> ... -> y. */
/* Whether the op's output is [N, C, 1, 1] (a global pool's), its nodes identical (run without graph optimizations). */
static bool pooled_output(const op_spec *s)
{
    return strcmp(s->name, "gap") == 0;
}

/* Whether the sessions run without graph optimizations: identical pools (CSE would merge them), or Transposes
 * (the optimizer would cancel pairs of them). */
static bool unoptimized(const op_spec *s)
{
    return pooled_output(s) || strcmp(s->name, "transpose") == 0;
}

static int build(const op_spec *s, int length, uint8_t **out, size_t *len)
{
    onnx_model *m = onnx_model_new(13);
    uint32_t seed = 7;
    int64_t c = s->dims[1], pooled[4] = {s->dims[0], c, 1, 1};
    onnx_model_add_input(m, "x", ONNX_FLOAT, s->rank, s->dims);
    onnx_model_add_output(m, "y", ONNX_FLOAT, s->rank, pooled_output(s) ? pooled : s->dims);
    bool pointwise = strcmp(s->name, "conv1x1") == 0 || strcmp(s->name, "convres") == 0 ||
                     strcmp(s->name, "conv480") == 0;
    bool quantized = s->name[0] == 'q';
    if (pointwise || strcmp(s->name, "conv3x3") == 0 || strcmp(s->name, "conv1d") == 0) {
        int k = pointwise ? 1 : 3;
        int64_t wd[4] = {c, c, k, k}, bd[1] = {c}; /* the first s->rank of them */
        add_random(m, "w", s->rank, wd, 1.0f / sqrtf((float)(c * k * (s->rank == 4 ? k : 1))), &seed);
        add_random(m, "b", 1, bd, 0.1f, &seed);
    } else if (strcmp(s->name, "pwsmall") == 0) {
        int64_t wd[4] = {2 * c, c, 1, 1}, bd[1] = {2 * c}, bwd[4] = {c, 2 * c, 1, 1}, bbd[1] = {c};
        add_random(m, "w", 4, wd, 1.0f / sqrtf((float)c), &seed);
        add_random(m, "b", 1, bd, 0.1f, &seed);
        add_random(m, "wb", 4, bwd, 1.0f / sqrtf((float)(2 * c)), &seed);
        add_random(m, "bb", 1, bbd, 0.1f, &seed);
    } else if (quantized) {
        bool conv = strcmp(s->name, "qmatmul") != 0, depthwise = strcmp(s->name, "qdw3x3") == 0;
        size_t n = (size_t)(c * (depthwise ? 1 : c) * (conv ? 9 : 1));
        int64_t wd[4] = {c, depthwise ? 1 : c, 3, 3}, bd[1] = {c};
        uint8_t *w = malloc(n), zp = 128;
        int32_t *b = malloc((size_t)c * sizeof(int32_t));
        for (size_t i = 0; i < n; i++) w[i] = (uint8_t)(128.0f + 127.0f * frand(&seed));
        for (int64_t i = 0; i < c; i++) b[i] = (int32_t)(1000.0f * frand(&seed));
        float xs = 0.02f, ws = 5e-4f;
        onnx_model_add_initializer(m, "w", ONNX_UINT8, conv ? 4 : 2, wd, w, n);
        onnx_model_add_initializer(m, "b", ONNX_INT32, 1, bd, b, (size_t)c * sizeof(int32_t));
        onnx_model_add_initializer(m, "xs", ONNX_FLOAT, 0, NULL, &xs, sizeof(xs));
        onnx_model_add_initializer(m, "ws", ONNX_FLOAT, 0, NULL, &ws, sizeof(ws));
        onnx_model_add_initializer(m, "z", ONNX_UINT8, 0, NULL, &zp, 1);
        float bs = xs * ws;
        int32_t bz = 0;
        onnx_model_add_initializer(m, "bs", ONNX_FLOAT, 0, NULL, &bs, sizeof(bs));
        onnx_model_add_initializer(m, "bz", ONNX_INT32, 0, NULL, &bz, sizeof(bz));
        free(w);
        free(b);
    } else if (strcmp(s->name, "dw3x3") == 0 || strcmp(s->name, "dwres") == 0) {
        int64_t wd[4] = {c, 1, 3, 3}, bd[1] = {c};
        add_random(m, "w", 4, wd, 0.3f, &seed);
        add_random(m, "b", 1, bd, 0.1f, &seed);
    } else if (strcmp(s->name, "convt2x2") == 0) {
        int64_t wd[4] = {c, c, 2, 2}, bd[1] = {c}, sd[1] = {4};
        float down[4] = {1, 1, 0.5f, 0.5f};
        add_random(m, "w", 4, wd, 1.0f / sqrtf((float)c), &seed);
        add_random(m, "b", 1, bd, 0.1f, &seed);
        onnx_model_add_initializer(m, "down", ONNX_FLOAT, 1, sd, down, sizeof(down));
    } else if (strcmp(s->name, "head") == 0) {
        int64_t wd[4] = {c, c, 2, 2}, ad[4] = {1, c, 1, 1}, cd[1] = {c}, sd[1] = {4};
        float down[4] = {1, 1, 0.5f, 0.5f};
        add_random(m, "w", 4, wd, 1.0f / sqrtf((float)c), &seed);
        add_random(m, "a", 4, ad, 0.1f, &seed);
        add_random(m, "scale", 1, cd, 1.0f, &seed);
        add_random(m, "B", 1, cd, 0.1f, &seed);
        add_random(m, "mean", 1, cd, 0.1f, &seed);
        float var[64];
        for (int64_t i = 0; i < c; i++) var[i] = 0.5f + 0.25f * frand(&seed);
        onnx_model_add_initializer(m, "var", ONNX_FLOAT, 1, cd, var, (size_t)c * sizeof(float));
        onnx_model_add_initializer(m, "down", ONNX_FLOAT, 1, sd, down, sizeof(down));
    } else if (strcmp(s->name, "stem") == 0) {
        int64_t wd[4] = {16, c, 3, 3}, bd[1] = {16}, td[4] = {16, c, 2, 2}, tbd[1] = {c};
        add_random(m, "w", 4, wd, 1.0f / sqrtf((float)(c * 9)), &seed);
        add_random(m, "b", 1, bd, 0.1f, &seed);
        add_random(m, "wt", 4, td, 0.25f, &seed);
        add_random(m, "bt", 1, tbd, 0.1f, &seed);
    } else if (strcmp(s->name, "lstm") == 0) {
        int64_t h = s->dims[2], wd[3] = {1, 4 * h, h}, bd[2] = {1, 8 * h};
        add_random(m, "w", 3, wd, 1.0f / sqrtf((float)h), &seed);
        add_random(m, "r", 3, wd, 1.0f / sqrtf((float)h), &seed);
        add_random(m, "b", 2, bd, 0.1f, &seed);
    } else if (strcmp(s->name, "matmul") == 0) {
        add_random(m, "w", 2, s->dims, 1.0f / 32.0f, &seed);
    } else if (strcmp(s->name, "add") == 0) {
        add_random(m, "w", s->rank, s->dims, 0.1f, &seed);
    } else if (strcmp(s->name, "mulch") == 0) {
        int64_t wd[4] = {1, c, 1, 1};
        add_random(m, "w", 4, wd, 1.0f, &seed);
    } else if (strcmp(s->name, "mul") == 0) {
        add_random(m, "w", 1, &s->dims[1], 1.0f, &seed);
    } else if (strncmp(s->name, "resize", 6) == 0) {
        float down[4] = {1, 1, 0.5f, 0.5f}, up[4] = {1, 1, 2, 2};
        int64_t sd[1] = {4};
        onnx_model_add_initializer(m, "down", ONNX_FLOAT, 1, sd, down, sizeof(down));
        onnx_model_add_initializer(m, "up", ONNX_FLOAT, 1, sd, up, sizeof(up));
    }
    for (int k = 0; k < length; k++) {
        char in[16], outn[16];
        snprintf(in, sizeof(in), k == 0 ? "x" : "v%d", k);
        snprintf(outn, sizeof(outn), k == length - 1 ? "y" : "v%d", k + 1);
        const char *ins[3] = {in, "w", "b"};
        const char *outs[1] = {outn};
        char conv_out[20];
        snprintf(conv_out, sizeof(conv_out), "c%d", k);
        const char *res_in[2] = {conv_out, in}, *res_out[1] = {conv_out};
        bool res = strcmp(s->name, "dwres") == 0 || strcmp(s->name, "convres") == 0;
        if (strcmp(s->name, "stem") == 0) {
            const char *conv_outs[1] = {conv_out}, *t_in[3] = {conv_out, "wt", "bt"};
            onnx_node *n = onnx_model_add_node(m, "Conv", ins, 3, conv_outs, 1);
            int64_t pads[4] = {1, 1, 1, 1}, two[2] = {2, 2};
            onnx_node_attr_ints(n, "pads", pads, 4);
            onnx_node_attr_ints(n, "strides", two, 2);
            onnx_node *t = onnx_model_add_node(m, "ConvTranspose", t_in, 3, outs, 1);
            onnx_node_attr_ints(t, "kernel_shape", two, 2);
            onnx_node_attr_ints(t, "strides", two, 2);
        } else if (strcmp(s->name, "pwsmall") == 0) {
            char sig[20], act[20];
            snprintf(sig, sizeof(sig), "s%d", k);
            snprintf(act, sizeof(act), "a%d", k);
            const char *conv_outs[1] = {conv_out}, *sig_outs[1] = {sig}, *mul_in[2] = {conv_out, sig};
            const char *act_outs[1] = {act}, *back_in[3] = {act, "wb", "bb"};
            onnx_model_add_node(m, "Conv", ins, 3, conv_outs, 1);
            onnx_node *h = onnx_model_add_node(m, "HardSigmoid", conv_outs, 1, sig_outs, 1);
            onnx_node_attr_float(h, "alpha", 1.0f / 6.0f);
            onnx_model_add_node(m, "Mul", mul_in, 2, act_outs, 1);
            onnx_model_add_node(m, "Conv", back_in, 3, outs, 1);
        } else if (strcmp(s->name, "convt2x2") == 0) {
            char up[20];
            snprintf(up, sizeof(up), "u%d", k);
            const char *up_out[1] = {up}, *down_in[3] = {up, "", "down"};
            onnx_node *n = onnx_model_add_node(m, "ConvTranspose", ins, 3, up_out, 1);
            int64_t two[2] = {2, 2};
            onnx_node_attr_ints(n, "kernel_shape", two, 2);
            onnx_node_attr_ints(n, "strides", two, 2);
            onnx_model_add_node(m, "Resize", down_in, 3, outs, 1);
        } else if (strcmp(s->name, "head") == 0) {
            char t[20], b[20], n[20], r[20];
            snprintf(t, sizeof(t), "t%d", k), snprintf(b, sizeof(b), "b%d", k);
            snprintf(n, sizeof(n), "n%d", k), snprintf(r, sizeof(r), "r%d", k);
            onnx_node *up = onnx_model_add_node(m, "ConvTranspose", ins, 2, (const char *[]){t}, 1);
            int64_t two[2] = {2, 2};
            onnx_node_attr_ints(up, "kernel_shape", two, 2);
            onnx_node_attr_ints(up, "strides", two, 2);
            onnx_model_add_node(m, "Add", (const char *[]){t, "a"}, 2, (const char *[]){b}, 1);
            onnx_model_add_node(m, "BatchNormalization", (const char *[]){b, "scale", "B", "mean", "var"}, 5,
                                (const char *[]){n}, 1);
            onnx_model_add_node(m, "Relu", (const char *[]){n}, 1, (const char *[]){r}, 1);
            onnx_model_add_node(m, "Resize", (const char *[]){r, "", "down"}, 3, outs, 1);
        } else if (quantized) {
            char qin[20], qout[20];
            snprintf(qin, sizeof(qin), "q%d", k);
            snprintf(qout, sizeof(qout), "q%d", k + 1);
            if (k == 0) onnx_model_add_node(m, "QuantizeLinear", (const char *[]){"x", "xs", "z"}, 3,
                                            (const char *[]){qin}, 1);
            const char *q_in[9] = {qin, "xs", "z", "w", "ws", "z", "xs", "z", "b"};
            if (strcmp(s->name, "qmatmul") == 0) {
                onnx_model_add_node(m, "QLinearMatMul", q_in, 8, (const char *[]){qout}, 1);
            } else if (strcmp(s->name, "qdqconv3x3") == 0) {
                char xd[20], wd[20], bd[20], yf[20];
                snprintf(xd, sizeof(xd), "xd%d", k), snprintf(wd, sizeof(wd), "wd%d", k);
                snprintf(bd, sizeof(bd), "bd%d", k), snprintf(yf, sizeof(yf), "yf%d", k);
                const char *dq[3][4] = {{qin, "xs", "z", xd}, {"w", "ws", "z", wd}, {"b", "bs", "bz", bd}};
                for (int d = 0; d < 3; d++)
                    onnx_model_add_node(m, "DequantizeLinear", dq[d], 3, (const char *[]){dq[d][3]}, 1);
                onnx_node *n = onnx_model_add_node(m, "Conv", (const char *[]){xd, wd, bd}, 3, (const char *[]){yf}, 1);
                int64_t pads[4] = {1, 1, 1, 1};
                onnx_node_attr_ints(n, "pads", pads, 4);
                onnx_model_add_node(m, "QuantizeLinear", (const char *[]){yf, "xs", "z"}, 3, (const char *[]){qout}, 1);
            } else {
                onnx_node *n = onnx_model_add_node(m, "QLinearConv", q_in, 9, (const char *[]){qout}, 1);
                int64_t pads[4] = {1, 1, 1, 1};
                onnx_node_attr_ints(n, "pads", pads, 4);
                if (strcmp(s->name, "qdw3x3") == 0) onnx_node_attr_int(n, "group", c);
            }
            if (k == length - 1) onnx_model_add_node(m, "DequantizeLinear", (const char *[]){qout, "xs", "z"}, 3,
                                                     outs, 1);
        } else if (s->name[0] == 'c' || s->name[0] == 'd') {
            onnx_node *n = onnx_model_add_node(m, "Conv", ins, 3, res ? res_out : outs, 1);
            if (res) onnx_model_add_node(m, "Add", res_in, 2, outs, 1);
            int pad = pointwise ? 0 : 1;
            int64_t pads[4] = {pad, pad, pad, pad};
            onnx_node_attr_ints(n, "pads", pads, 2 * (s->rank - 2));
            if (s->name[0] == 'd') onnx_node_attr_int(n, "group", c);
        } else if (strcmp(s->name, "lstm") == 0) {
            const char *lstm_in[4] = {in, "w", "r", "b"}, *lstm_out[2] = {"", outn};
            onnx_node_attr_int(onnx_model_add_node(m, "LSTM", lstm_in, 4, lstm_out, 2), "hidden_size", s->dims[2]);
        } else if (strcmp(s->name, "matmul") == 0) {
            onnx_model_add_node(m, "MatMul", ins, 2, outs, 1);
        } else if (strcmp(s->name, "add") == 0) {
            onnx_model_add_node(m, "Add", ins, 2, outs, 1);
        } else if (strncmp(s->name, "mul", 3) == 0) {
            onnx_model_add_node(m, "Mul", ins, 2, outs, 1);
        } else if (strcmp(s->name, "softmax") == 0) {
            onnx_model_add_node(m, "Softmax", ins, 1, outs, 1);
        } else if (strcmp(s->name, "transpose") == 0) {
            int64_t perm[4] = {0, 1, 3, 2};
            onnx_node_attr_ints(onnx_model_add_node(m, "Transpose", ins, 1, outs, 1), "perm", perm, 4);
        } else if (strcmp(s->name, "gap") == 0) {
            /* p_k = GlobalAveragePool(x); y = p_0 + ... + p_k */
            char pool_name[20], sum_in[20];
            snprintf(pool_name, sizeof(pool_name), length == 1 ? "y" : "p%d", k);
            snprintf(sum_in, sizeof(sum_in), k == 1 ? "p0" : "v%d", k);
            const char *pool_in[1] = {"x"}, *pool_out[1] = {pool_name}, *add_in[2] = {sum_in, pool_name};
            onnx_model_add_node(m, "GlobalAveragePool", pool_in, 1, pool_out, 1);
            if (k > 0) onnx_model_add_node(m, "Add", add_in, 2, outs, 1);
        } else if (strcmp(s->name, "se") == 0) {
            char pooled[20];
            snprintf(pooled, sizeof(pooled), "p%d", k);
            const char *pool_out[1] = {pooled}, *mul_in[2] = {in, pooled};
            onnx_model_add_node(m, "GlobalAveragePool", ins, 1, pool_out, 1);
            onnx_model_add_node(m, "Mul", mul_in, 2, outs, 1);
        } else if (strcmp(s->name, "neck") == 0) {
            char pooled[20], scaled[20], sum[20];
            snprintf(pooled, sizeof(pooled), "p%d", k);
            snprintf(scaled, sizeof(scaled), "m%d", k);
            snprintf(sum, sizeof(sum), "a%d", k);
            const char *pool_out[1] = {pooled}, *mul_in[2] = {in, pooled}, *mul_out[1] = {scaled};
            const char *add_in[2] = {in, scaled}, *add_out[1] = {sum}, *up_in[2] = {sum, "x"};
            onnx_model_add_node(m, "GlobalAveragePool", ins, 1, pool_out, 1);
            onnx_model_add_node(m, "Mul", mul_in, 2, mul_out, 1);
            onnx_model_add_node(m, "Add", add_in, 2, add_out, 1);
            onnx_model_add_node(m, "Add", up_in, 2, outs, 1);
        } else if (strncmp(s->name, "resize", 6) == 0) {
            char half[20];
            snprintf(half, sizeof(half), "h%d", k);
            const char *down_in[3] = {in, "", "down"}, *up_in[3] = {half, "", "up"}, *down_out[1] = {half};
            onnx_node *nodes[2] = {onnx_model_add_node(m, "Resize", down_in, 3, down_out, 1),
                                   onnx_model_add_node(m, "Resize", up_in, 3, outs, 1)};
            for (int j = 0; j < 2; j++) onnx_node_attr_string(nodes[j], "mode", s->name[6] ? "linear" : "nearest");
        } else {
            onnx_model_add_node(m, "Sigmoid", ins, 1, outs, 1);
        }
    }
    int rc = onnx_model_serialize(m, out, len);
    onnx_model_free(m);
    return rc;
}

#define failed bench_app_failed

/* `plain`: no graph optimizations (a model of identical nodes that must each run). */
static OrtSession *session(ortapp *app, const OrtEpDevice *device, const uint8_t *model, size_t len, int threads,
                           bool plain)
{
    OrtSessionOptions *options = NULL;
    OrtSession *s = NULL;
    if (failed(app, app->api->CreateSessionOptions(&options), "CreateSessionOptions")) return NULL;
    int bad = failed(app, app->api->SetIntraOpNumThreads(options, threads), "SetIntraOpNumThreads");
    if (!bad && plain)
        bad = failed(app, app->api->SetSessionGraphOptimizationLevel(options, ORT_DISABLE_ALL),
                     "SetSessionGraphOptimizationLevel");
    if (!bad && device != NULL) {
        bad = failed(app, app->api->AddSessionConfigEntry(options, "session.disable_cpu_ep_fallback", "1"),
                     "AddSessionConfigEntry");
        if (!bad)
            bad = failed(app, app->api->SessionOptionsAppendExecutionProvider_V2(options, app->env, &device, 1, NULL,
                                                                                 NULL, 0),
                         "SessionOptionsAppendExecutionProvider_V2");
    }
    if (!bad)
        failed(app, app->api->CreateSessionFromArray(app->env, model, len, options, &s), "CreateSessionFromArray");
    app->api->ReleaseSessionOptions(options);
    return s;
}

static double process_cpu_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* A Run's wall time in ms; *cpu (when not NULL) gets the CPU time all threads of the process spent in it, which
 * other work on a loaded machine changes less than the wall time. */
static double run_named(ortapp *app, OrtSession *s, const char *in_name, const char *out_name, OrtValue *input,
                        float *first, size_t count, double *cpu)
{
    OrtValue *output = NULL;
    double start = bench_now_us(), cpu_start = process_cpu_ms();
    if (failed(app, app->api->Run(s, NULL, &in_name, (const OrtValue *const *)&input, 1, &out_name, 1, &output), "Run"))
        return -1;
    double ms = (bench_now_us() - start) / 1000.0;
    if (cpu != NULL) *cpu = process_cpu_ms() - cpu_start;
    if (first != NULL) {
        float *data = NULL;
        if (!failed(app, app->api->GetTensorMutableData(output, (void **)&data), "GetTensorMutableData"))
            memcpy(first, data, count * sizeof(float));
    }
    app->api->ReleaseValue(output);
    return ms;
}

static double run_ms(ortapp *app, OrtSession *s, OrtValue *input, float *first, size_t count, double *cpu)
{
    return run_named(app, s, "x", "y", input, first, count, cpu);
}

/* One node's figure, from the runs of the chain of 1 and of CHAIN: the difference of their medians / (CHAIN - 1)
 * where it stands above the runs' noise. A chain's noise is half the range of its runs, at least 1% of its median
 * (a few runs can agree by chance); the difference's is both chains' summed, / (CHAIN - 1). Within it (a negative
 * difference always is), the figure is an upper estimate: the difference (or 0) plus the noise, and never more
 * than median(CHAIN) / CHAIN, as a chain's Run holds CHAIN nodes. */
typedef struct node_time {
    double ms;  /* the difference; an upper estimate where `below` */
    bool below; /* the difference is within the noise */
} node_time;

static node_time node_of(const bench_stat *one, const bench_stat *chain)
{
    double noise = (fmax((one->max - one->min) / 2, 0.01 * one->median) +
                    fmax((chain->max - chain->min) / 2, 0.01 * chain->median)) /
                   (CHAIN - 1);
    double d = (chain->median - one->median) / (CHAIN - 1);
    if (d > noise) return (node_time){d, false};
    return (node_time){fmin(fmax(d, 0) + noise, chain->median / CHAIN), true};
}

/* `t` in ms as "%.2f" or, within the noise, "<%.2f" (`digits` decimals). */
static void format_ms(char *out, size_t size, node_time t, int digits)
{
    snprintf(out, size, "%s%.*f", t.below ? "<" : "", digits, t.ms);
}

/* `a` / `b` as "%.1fx": "<" where only `a` is an upper estimate, ">" where only `b` is, "-" where both are. */
static void format_ratio(char *out, size_t size, node_time a, node_time b)
{
    if ((a.below && b.below) || b.ms <= 0) snprintf(out, size, "-");
    else snprintf(out, size, "%s%.1fx", a.below ? "<" : b.below ? ">" : "", a.ms / b.ms);
}

static bool wanted(const char *list, const char *name)
{
    if (strcmp(list, "all") == 0) return true;
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0) return true;
        p = end ? end + 1 : NULL;
    }
    return false;
}

/* --ops model --model PATH: a whole model (one float input [1,3,H,W]) at --compare-sizes, the same way. */
static int bench_ops_model(ortapp *app, const OrtEpDevice *device, const bench_options *opt)
{
    uint8_t *model = NULL;
    size_t len = 0;
    if (opt->model_path == NULL || onnx_read_file(opt->model_path, &model, &len) != 0) {
        fprintf(stderr, "ortvk-bench: --ops model needs --model PATH (a readable ONNX file)\n");
        return 1;
    }
    OrtSession *s[2] = {session(app, device, model, len, opt->threads, false),
                        session(app, NULL, model, len, opt->threads, false)};
    free(model);
    int rc = s[0] && s[1] ? 0 : 1;
    int frames = opt->compare_frames;
    OrtAllocator *allocator = NULL;
    char *in_name = NULL, *out_name = NULL;
    if (rc == 0)
        rc = failed(app, app->api->GetAllocatorWithDefaultOptions(&allocator), "GetAllocatorWithDefaultOptions") ||
             failed(app, app->api->SessionGetInputName(s[1], 0, allocator, &in_name), "SessionGetInputName") ||
             failed(app, app->api->SessionGetOutputName(s[1], 0, allocator, &out_name), "SessionGetOutputName");
    printf("  model %s\n  size        ortvk ms   CPU ms  ratio  ortvk cpu  CPU cpu  ratio\n", opt->model_path);
    for (int z = 0; z < opt->compare_size_count && rc == 0; z++) {
        int w = opt->compare_sizes[z].width, h = opt->compare_sizes[z].height;
        size_t n = (size_t)3 * (size_t)w * (size_t)h;
        int64_t dims[4] = {1, 3, h, w};
        float *in = malloc(n * sizeof(float));
        double *ms = calloc(4 * (size_t)frames, sizeof(double));
        OrtMemoryInfo *cpu = NULL;
        OrtValue *input = NULL;
        rc = in && ms ? 0 : 1;
        for (size_t i = 0; rc == 0 && i < n; i++) in[i] = (float)((i * 2654435761u) % 1000) / 500.0f - 1.0f;
        if (rc == 0) rc = failed(app, app->api->CreateCpuMemoryInfo(OrtDeviceAllocator, OrtMemTypeDefault, &cpu),
                                 "CreateCpuMemoryInfo");
        if (rc == 0) rc = failed(app, app->api->CreateTensorWithDataAsOrtValue(cpu, in, n * sizeof(float), dims, 4,
                                                                               ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
                                                                               &input),
                                 "CreateTensorWithDataAsOrtValue");
        for (int e = 0; e < 2 && rc == 0; e++) rc = run_named(app, s[e], in_name, out_name, input, NULL, 0, NULL) < 0;
        for (int f = 0; f < frames && rc == 0; f++) {
            for (int e = 0; e < 2 && rc == 0; e++) {
                double c = 0, t = run_named(app, s[e], in_name, out_name, input, NULL, 0, &c);
                rc = t < 0;
                ms[(size_t)e * (size_t)frames + (size_t)f] = t;
                ms[(size_t)(2 + e) * (size_t)frames + (size_t)f] = c;
            }
        }
        if (rc == 0) {
            double med[4];
            for (int k = 0; k < 4; k++) med[k] = bench_stat_of(ms + (size_t)k * (size_t)frames, (size_t)frames).median;
            printf("  %4dx%-4d %10.1f %8.1f %5.1fx %10.1f %8.1f %5.1fx\n", w, h, med[0], med[1], med[0] / med[1],
                   med[2], med[3], med[2] / med[3]);
            fflush(stdout);
        }
        app->api->ReleaseValue(input);
        app->api->ReleaseMemoryInfo(cpu);
        free(in), free(ms);
    }
    if (in_name) app->api->AllocatorFree(allocator, in_name);
    if (out_name) app->api->AllocatorFree(allocator, out_name);
    for (int e = 0; e < 2; e++) {
        if (s[e]) app->api->ReleaseSession(s[e]);
    }
    return rc;
}

/* --ops small: a 7-node model of three small Gemms (x [1,64] -> Gemm -> Relu -> Gemm -> Relu -> Gemm -> Add x ->
 * Sigmoid), where a Run's fixed cost (recording, binding, submission, the wait) is all there is to measure: the
 * whole Run's wall and CPU time, ortvk and the CPU EP interleaved. */
#define SMALL_N 64
#define SMALL_RUNS 200

static int build_small(uint8_t **out, size_t *len)
{
    onnx_model *m = onnx_model_new(13);
    uint32_t seed = 11;
    int64_t xd[2] = {1, SMALL_N}, wd[2] = {SMALL_N, SMALL_N}, bd[1] = {SMALL_N};
    onnx_model_add_input(m, "x", ONNX_FLOAT, 2, xd);
    onnx_model_add_output(m, "y", ONNX_FLOAT, 2, xd);
    const char *w[3] = {"w1", "w2", "w3"}, *b[3] = {"b1", "b2", "b3"};
    for (int k = 0; k < 3; k++) {
        add_random(m, w[k], 2, wd, 1.0f / 8.0f, &seed);
        add_random(m, b[k], 1, bd, 0.1f, &seed);
    }
    static const char *const chain[8] = {"x", "g1", "r1", "g2", "r2", "g3", "s", "y"};
    for (int k = 0; k < 7; k++) {
        const char *outs[1] = {chain[k + 1]};
        if (k == 0 || k == 2 || k == 4) {
            const char *ins[3] = {chain[k], w[k / 2], b[k / 2]};
            onnx_model_add_node(m, "Gemm", ins, 3, outs, 1);
        } else if (k == 5) {
            const char *ins[2] = {chain[k], "x"};
            onnx_model_add_node(m, "Add", ins, 2, outs, 1);
        } else {
            const char *ins[1] = {chain[k]};
            onnx_model_add_node(m, k == 6 ? "Sigmoid" : "Relu", ins, 1, outs, 1);
        }
    }
    int rc = onnx_model_serialize(m, out, len);
    onnx_model_free(m);
    return rc;
}

static int bench_ops_small(ortapp *app, const OrtEpDevice *device, const bench_options *opt)
{
    uint8_t *model = NULL;
    size_t len = 0;
    if (build_small(&model, &len) != ONNX_OK) return 1;
    OrtSession *s[2] = {session(app, device, model, len, opt->threads, false),
                        session(app, NULL, model, len, opt->threads, false)};
    free(model);
    int rc = s[0] && s[1] ? 0 : 1;
    int runs = opt->compare_frames > SMALL_RUNS ? opt->compare_frames : SMALL_RUNS;
    float in[SMALL_N], out[2][SMALL_N];
    int64_t dims[2] = {1, SMALL_N};
    uint32_t seed = 5;
    for (int i = 0; i < SMALL_N; i++) in[i] = frand(&seed);
    double *us = calloc(4 * (size_t)runs, sizeof(double));
    OrtMemoryInfo *cpu = NULL;
    OrtValue *input = NULL;
    if (us == NULL) rc = 1;
    if (rc == 0) rc = failed(app, app->api->CreateCpuMemoryInfo(OrtDeviceAllocator, OrtMemTypeDefault, &cpu),
                             "CreateCpuMemoryInfo");
    if (rc == 0) rc = failed(app, app->api->CreateTensorWithDataAsOrtValue(cpu, in, sizeof(in), dims, 2,
                                                                           ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &input),
                             "CreateTensorWithDataAsOrtValue");
    for (int e = 0; e < 2 && rc == 0; e++) rc = run_ms(app, s[e], input, out[e], SMALL_N, NULL) < 0;
    for (int r = 0; r < runs && rc == 0; r++) {
        for (int e = 0; e < 2 && rc == 0; e++) {
            double c = 0, t = run_ms(app, s[e], input, NULL, 0, &c);
            rc = t < 0;
            us[(size_t)e * (size_t)runs + (size_t)r] = t * 1e3;
            us[(size_t)(2 + e) * (size_t)runs + (size_t)r] = c * 1e3;
        }
    }
    if (rc == 0) {
        double med[4], diff = 0;
        for (int k = 0; k < 4; k++) med[k] = bench_stat_of(us + (size_t)k * (size_t)runs, (size_t)runs).median;
        for (int i = 0; i < SMALL_N; i++) diff = fmax(diff, fabs((double)out[0][i] - (double)out[1][i]));
        printf("  small: 7 nodes (3 Gemm %dx%d, Relu, Add, Sigmoid), whole Run, median of %d interleaved runs\n"
               "    ortvk %.1f us (cpu %.1f us), CPU EP %.1f us (cpu %.1f us), ratio %.1fx (cpu %.1fx), "
               "max |diff| %.2g\n",
               SMALL_N, SMALL_N, runs, med[0], med[2], med[1], med[3], med[0] / med[1], med[2] / med[3], diff);
        fflush(stdout);
    }
    app->api->ReleaseValue(input);
    app->api->ReleaseMemoryInfo(cpu);
    free(us);
    for (int e = 0; e < 2; e++) {
        if (s[e]) app->api->ReleaseSession(s[e]);
    }
    return rc;
}

int bench_ops(const bench_options *opt, const char *ort_path, const char *ep_path)
{
    ortapp app;
    const OrtEpDevice *device;
    int opened = bench_app_open(&app, opt, ort_path, ep_path, &device);
    if (opened == 77) return 77;
    if (opened != 0) {
        ortapp_close(&app);
        return 1;
    }
    const char *device_name = app.api->GetKeyValue(app.api->EpDevice_EpMetadata(device), ORTVK_META_DEVICE_NAME);
    int frames = opt->compare_frames;
    printf("Single ops on ortvk against ORT's CPU EP (%d intra-op threads): chains of 1 and %d nodes, one node's time\n"
           "= (median(%d) - median(1)) / %d over %d interleaved runs each (+1 warm-up); device %s, ONNX Runtime %s\n"
           "  (cpu: CPU time of all the process's threads, less sensitive to other load; diff: relative to max |y|)\n"
           "  (<t: the difference is within the runs' noise (half a chain's range, at least 1%% of its median, both\n"
           "   chains summed, / %d): t is an upper estimate of the node's time, as is ns/el after <; GFLOP/s after >\n"
           "   is a lower estimate, a ratio after < or > a bound; the raw difference may be negative, never printed)\n"
           "  op                                  ortvk ms   CPU ms    ortvk rate      CPU rate  ratio"
           " ortvk cpu  CPU cpu  ratio     diff\n",
           opt->threads, CHAIN, CHAIN, CHAIN - 1, frames, device_name, app.version, CHAIN - 1);
    int rc = 0;
    if (wanted(opt->ops, "model") && strcmp(opt->ops, "all") != 0) rc = bench_ops_model(&app, device, opt);
    if (wanted(opt->ops, "small") && rc == 0) rc = bench_ops_small(&app, device, opt);
    for (size_t o = 0; o < sizeof(specs) / sizeof(specs[0]) && rc == 0; o++) {
        const op_spec *s = &specs[o];
        if (!wanted(opt->ops, s->name)) continue;
        size_t n = 1;
        for (int i = 0; i < s->rank; i++) n *= (size_t)s->dims[i];
        size_t out_n = pooled_output(s) ? (size_t)(s->dims[0] * s->dims[1]) : n;
        float *in = malloc(n * sizeof(float)), *a = malloc(n * sizeof(float)), *c = malloc(n * sizeof(float));
        double *ms = calloc(8 * (size_t)frames, sizeof(double));
        OrtSession *sessions[2][2] = {{NULL, NULL}, {NULL, NULL}}; /* [chain 1 / CHAIN][ortvk / CPU] */
        OrtMemoryInfo *cpu = NULL;
        OrtValue *input = NULL;
        rc = in && a && c && ms ? 0 : 1;
        uint32_t seed = 99;
        for (size_t i = 0; rc == 0 && i < n; i++) in[i] = frand(&seed);
        for (int l = 0; l < 2 && rc == 0; l++) {
            uint8_t *model = NULL;
            size_t len = 0;
            if (build(s, l ? CHAIN : 1, &model, &len) != ONNX_OK) rc = 1;
            for (int e = 0; e < 2 && rc == 0; e++) {
                sessions[l][e] = session(&app, e ? NULL : device, model, len, opt->threads, unoptimized(s));
                if (sessions[l][e] == NULL) rc = 1;
            }
            free(model);
        }
        if (rc == 0) rc = failed(&app, app.api->CreateCpuMemoryInfo(OrtDeviceAllocator, OrtMemTypeDefault, &cpu),
                                 "CreateCpuMemoryInfo");
        if (rc == 0) rc = failed(&app, app.api->CreateTensorWithDataAsOrtValue(cpu, in, n * sizeof(float), s->dims,
                                                                               (size_t)s->rank,
                                                                               ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT,
                                                                               &input),
                                 "CreateTensorWithDataAsOrtValue");
        /* Warm-up (and the outputs to compare), then interleaved frames. */
        if (rc == 0 && (run_ms(&app, sessions[1][0], input, a, out_n, NULL) < 0 ||
                        run_ms(&app, sessions[1][1], input, c, out_n, NULL) < 0 ||
                        run_ms(&app, sessions[0][0], input, NULL, 0, NULL) < 0 ||
                        run_ms(&app, sessions[0][1], input, NULL, 0, NULL) < 0))
            rc = 1;
        for (int f = 0; f < frames && rc == 0; f++) {
            for (int k = 0; k < 4 && rc == 0; k++) {
                double cpu = 0, t = run_ms(&app, sessions[k / 2][k % 2], input, NULL, 0, &cpu);
                if (t < 0) rc = 1;
                ms[(size_t)k * (size_t)frames + (size_t)f] = t;
                ms[(size_t)(4 + k) * (size_t)frames + (size_t)f] = cpu;
            }
        }
        if (rc == 0) {
            bench_stat st[8]; /* [wall / cpu][chain 1 / CHAIN][ortvk / CPU] */
            for (int k = 0; k < 8; k++) st[k] = bench_stat_of(ms + (size_t)k * (size_t)frames, (size_t)frames);
            node_time node[2] = {node_of(&st[0], &st[2]), node_of(&st[1], &st[3])};
            node_time cpu[2] = {node_of(&st[4], &st[6]), node_of(&st[5], &st[7])};
            double diff = 0, scale = 0;
            for (size_t i = 0; i < out_n; i++) {
                diff = fmax(diff, fabs((double)a[i] - (double)c[i]));
                scale = fmax(scale, fabs((double)c[i]));
            }
            /* An upper estimate of a time is a lower one of a rate (">"); of a time per element, an upper one. */
            char rate[2][32], time[4][24], ratio[2][24];
            for (int e = 0; e < 2; e++) {
                const char *mark = node[e].below ? (s->elementwise ? "<" : ">") : "";
                if (s->elementwise)
                    snprintf(rate[e], sizeof(rate[e]), "%s%.2f ns/el", mark, node[e].ms * 1e6 / s->work);
                else if (node[e].ms > 0)
                    snprintf(rate[e], sizeof(rate[e]), "%s%.1f GFLOP/s", mark, s->work / (node[e].ms * 1e6));
                else snprintf(rate[e], sizeof(rate[e]), "-");
                format_ms(time[e], sizeof(time[e]), node[e], 2);
                format_ms(time[2 + e], sizeof(time[2 + e]), cpu[e], 1);
            }
            format_ratio(ratio[0], sizeof(ratio[0]), node[0], node[1]);
            format_ratio(ratio[1], sizeof(ratio[1]), cpu[0], cpu[1]);
            printf("  %-34s %9s %8s %13s %13s %7s %9s %8s %7s %8.2g\n", s->label, time[0], time[1], rate[0], rate[1],
                   ratio[0], time[2], time[3], ratio[1], diff / (scale > 0 ? scale : 1));
            fflush(stdout);
        }
        app.api->ReleaseValue(input);
        app.api->ReleaseMemoryInfo(cpu);
        for (int l = 0; l < 2; l++) {
            for (int e = 0; e < 2; e++) {
                if (sessions[l][e]) app.api->ReleaseSession(sessions[l][e]);
            }
        }
        free(in), free(a), free(c), free(ms);
    }
    ortapp_close(&app);
    return rc;
}
