// LSTM, GRU and RNN: one time step of every direction and batch entry, one invocation per hidden unit
// (kernel_rnn.c records one dispatch per step, two for GRU). The inputs' projections X W^T are made beforehand for
// all steps (the GEMM shader); this adds H_{t-1} R^T, the biases and peepholes, and applies the gates as ORT's CPU
// EP does: biases Wb + Rb summed first, the gates' inputs clamped to +-FLT_MAX (LSTM, GRU), zeros for a batch entry
// with sequence length 0 (LSTM, GRU). The state lives in the `work` scratch buffer (float32): the projections, h
// in two halves (read one, write the other), c (LSTM), z and r (GRU), the biases, peepholes and lengths.
// VARIANT ORTVK_RNN_VEC4 reads R a vec4 at a time; with the flag ORTVK_RNN_PROJECT (a single time step) it also
// projects its own input, X and W read a vec4 at a time: X W^T needs no GEMM dispatch then.
#version 460
#include "common.glsl"

layout(constant_id = 0) const uint CELL = 0u;    // ORTVK_RNN_LSTM, _GRU or _RNN
layout(constant_id = 1) const uint VARIANT = 0u; // ORTVK_RNN_VEC4 or 0

layout(push_constant) uniform Push {
    uvec2 work, r, y;     // scratch (float32), R [D, G, H], Y [S, D, B, H] (or absent)
    uvec2 x, w;           // X [S, B, I] and W [D, G, I]: read with ORTVK_RNN_PROJECT
    uint S, B, H, D;
    uint step;            // 0 .. S - 1: direction 0 runs t = step, a reverse one t = len - 1 - step
    uint flags;           // 1 bias, 2 peepholes, 4 direction 0 is reverse, 8 linear_before_reset, 16 zero for a
                          // length of 0, 32 GRU's second phase, 64 the first step without initial_h (RNN: no
                          // H R^T, as ORT's CPU EP), ORTVK_RNN_PROJECT (kernel_ids.h); bits 8-9 the RNN's
                          // activation
    uint proj, h_in, h_out, c, zr, bias, peep, lens; // float offsets into work
    uint I;               // input_size
} p;

#define W(i) ORTVK_FLOAT(0, p.work, i)
#define FLT_MAX 3.40282347e38

// ORT's clip_add_bias (x + bias, then min and max against +-FLT_MAX: NaN becomes FLT_MAX) or clip_ignore_bias.
float clip_bias(float x, bool has_bias, float bias)
{
    if (has_bias) {
        precise float v = x + bias;
        v = v < FLT_MAX ? v : FLT_MAX;
        return -FLT_MAX < v ? v : -FLT_MAX;
    }
    if (x > FLT_MAX) return FLT_MAX;
    if (x < -FLT_MAX) return -FLT_MAX;
    return x;
}

// The sum over k of a[k] R[row, k], a at `a` in work.
float dot_row(uint a, uint row)
{
    if (VARIANT == ORTVK_RNN_VEC4) {
        vec4 s4 = vec4(0.0);
        uint base = row * p.H;
        ORTVK_FOR(k, 0u, p.H / 4u) {
            s4 += ORTVK_VEC4(0, p.work, (a >> 2u) + k) * ORTVK_TEXEL4(1, p.r, base + 4u * k);
        }
        return (s4.x + s4.y) + (s4.z + s4.w);
    }
    float s = 0.0;
    uint base = row * p.H;
    ORTVK_FOR(k, 0u, p.H) {
        s += W(a + k) * ORTVK_GET(1, p.r, base + k);
    }
    return s;
}

// Gate j's input projection (X W^T) of the step at `x`: read from work where a GEMM made it, or (ORTVK_RNN_PROJECT)
// the sum over k of X[x + k] W[d * G + j, k].
float projected(uint x, uint d, uint G, uint j)
{
    if (VARIANT != ORTVK_RNN_VEC4 || (p.flags & ORTVK_RNN_PROJECT) == 0u) return W(x + j);
    vec4 s4 = vec4(0.0);
    uint base = (d * G + j) * p.I;
    ORTVK_FOR(k, 0u, p.I / 4u) {
        s4 += ORTVK_VEC4(3, p.x, (x >> 2u) + k) * ORTVK_TEXEL4(4, p.w, base + 4u * k);
    }
    return (s4.x + s4.y) + (s4.z + s4.w);
}

float bias_sum(uint d, uint G, uint j) // Wb[j] + Rb[j]
{
    return W(p.bias + d * 2u * G + j) + W(p.bias + d * 2u * G + G + j);
}

float activation(float x)
{
    uint fn = (p.flags >> 8) & 3u;
    if (fn == ORTVK_RNN_RELU) return x > 0.0 ? x : 0.0;
    if (fn == ORTVK_RNN_SIGMOID) return ortvk_sigmoid(x);
    return ortvk_tanh(x);
}

void main()
{
    uint i = ortvk_index();
    if (i >= p.D * p.B * p.H) return;
    uint h = i % p.H, b = (i / p.H) % p.B, d = i / (p.H * p.B);
    uint gates = CELL == ORTVK_RNN_LSTM ? 4u : CELL == ORTVK_RNN_GRU ? 3u : 1u, G = gates * p.H;
    bool has_bias = (p.flags & 1u) != 0u, second = (p.flags & 32u) != 0u;
    uint len = ORTVK_WORD(0, p.work, p.lens + b);
    uint state = (d * p.B + b) * p.H; // this entry's h (and c, z, r) row
    uint hidx = state + h;
    bool rev = d == 1u || (p.flags & 4u) != 0u;
    if (p.step >= len) {
        // Past the entry's length: the state is carried (zeroed for a length of 0), its Y row at t = step is 0.
        if (CELL == ORTVK_RNN_GRU && !second) return;
        bool zero = len == 0u && (p.flags & 16u) != 0u;
        W(p.h_out + hidx) = zero ? 0.0 : W(p.h_in + hidx);
        if (CELL == ORTVK_RNN_LSTM && zero) W(p.c + hidx) = 0.0;
        if (p.y != uvec2(0u)) ORTVK_SET(2, p.y, ((p.step * p.D + d) * p.B + b) * p.H + h, 0.0);
        return;
    }
    uint t = rev ? len - 1u - p.step : p.step;
    // X W^T of this time step and entry in work, or (ORTVK_RNN_PROJECT) X's row
    uint x = (p.flags & ORTVK_RNN_PROJECT) != 0u ? (t * p.B + b) * p.I : p.proj + ((d * p.S + t) * p.B + b) * G;
    uint hin = p.h_in + state;
    float hprev = W(hin + h), hnew;
    if (CELL == ORTVK_RNN_LSTM) {
        // Gates i, o, f, c (W's order). C = f Cprev + i c~, H = o tanh(C); peepholes P[i, o, f].
        bool peep = (p.flags & 2u) != 0u;
        float cprev = W(p.c + hidx);
        float gi = projected(x, d, G, h) + dot_row(hin, d * G + h);
        float go = projected(x, d, G, p.H + h) + dot_row(hin, d * G + p.H + h);
        float gf = projected(x, d, G, 2u * p.H + h) + dot_row(hin, d * G + 2u * p.H + h);
        float gc = projected(x, d, G, 3u * p.H + h) + dot_row(hin, d * G + 3u * p.H + h);
        uint pd = p.peep + d * 3u * p.H;
        if (peep) {
            gi += cprev * W(pd + h);
            gf += cprev * W(pd + 2u * p.H + h);
        }
        float ig = ortvk_sigmoid(clip_bias(gi, has_bias, has_bias ? bias_sum(d, G, h) : 0.0));
        float fg = ortvk_sigmoid(clip_bias(gf, has_bias, has_bias ? bias_sum(d, G, 2u * p.H + h) : 0.0));
        float cg = ortvk_tanh(clip_bias(gc, has_bias, has_bias ? bias_sum(d, G, 3u * p.H + h) : 0.0));
        float cnew = cprev * fg + ig * cg;
        if (peep) go += cnew * W(pd + p.H + h);
        float og = ortvk_sigmoid(clip_bias(go, has_bias, has_bias ? bias_sum(d, G, p.H + h) : 0.0));
        hnew = ortvk_tanh(cnew) * og;
        W(p.c + hidx) = cnew;
    } else if (CELL == ORTVK_RNN_GRU) {
        // Gates z, r, h. First phase: z and r (r as r Hprev without linear_before_reset), for every unit; second:
        // h~ from them, H = (1 - z) h~ + z Hprev.
        bool lbr = (p.flags & 8u) != 0u;
        uint zbuf = p.zr + 2u * state, rbuf = zbuf + p.H;
        // z at zbuf, r at rbuf of each entry: 2H floats per (direction, entry)
        if (!second) {
            float gz = projected(x, d, G, h) + dot_row(hin, d * G + h);
            float gr = projected(x, d, G, p.H + h) + dot_row(hin, d * G + p.H + h);
            float zg = ortvk_sigmoid(clip_bias(gz, has_bias, has_bias ? bias_sum(d, G, h) : 0.0));
            float rg = ortvk_sigmoid(clip_bias(gr, has_bias, has_bias ? bias_sum(d, G, p.H + h) : 0.0));
            W(zbuf + h) = zg;
            W(rbuf + h) = lbr ? rg : rg * hprev;
            return;
        }
        float gh;
        uint row = d * G + 2u * p.H + h;
        if (lbr) {
            float lin = dot_row(hin, row);
            if (has_bias) lin = W(p.bias + d * 2u * G + G + 2u * p.H + h) + lin;
            gh = clip_bias(projected(x, d, G, 2u * p.H + h) + W(rbuf + h) * lin, has_bias,
                           has_bias ? W(p.bias + d * 2u * G + 2u * p.H + h) : 0.0);
        } else {
            gh = clip_bias(projected(x, d, G, 2u * p.H + h) + dot_row(rbuf, row), has_bias,
                           has_bias ? bias_sum(d, G, 2u * p.H + h) : 0.0);
        }
        float zg = W(zbuf + h);
        hnew = (1.0 - zg) * ortvk_tanh(gh) + zg * hprev;
    } else {
        // Ht = f(Ht-1 R^T + (X W^T + (Wb + Rb))). Without initial_h, ORT's first step (t = 0, or S - 1 reversed)
        // has no Ht-1 R^T (0 there); a reversed entry shorter than S reaches its first step later, from zeros that
        // ORT multiplies.
        float xw = projected(x, d, G, h);
        if (has_bias) xw = xw + bias_sum(d, G, h);
        bool first = (p.flags & 64u) != 0u && (!rev || len == p.S);
        float hr = first ? 0.0 : dot_row(hin, d * G + h);
        hnew = activation(hr + xw);
    }
    W(p.h_out + hidx) = hnew;
    if (p.y != uvec2(0u)) ORTVK_SET(2, p.y, ((t * p.D + d) * p.B + b) * p.H + h, hnew);
}
