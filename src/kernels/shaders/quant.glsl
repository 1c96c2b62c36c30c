// The quantized ops' float arithmetic as ORT's CPU EP (MLAS) does it: the correctly rounded quotient, and the
// saturation and rounding of a value into uint8 or int8 (kernel_quant.comp, kernel_qmm.comp).

// a / b correctly rounded, as the CPU computes it. Vulkan lets a division be off by 2.5 ULP (lavapipe turns a division
// by a constant into a product with its reciprocal), and one ULP decides a rounding at .5. From the driver's quotient
// q, moved by one ULP while a / b lies beyond the midpoint to its neighbour, decided in integers (the mantissas'
// products, 64 bits with umulExtended): float tricks such as Dekker's product break where a driver fuses a * b + c.
// Exact for |a|, |b|, |q| in (2^-100, 2^100); elsewhere (zero, NaN, infinities, extreme scales) the driver's
// quotient stays, but of subnormal operands read from their bits where the device would flush them (ortvk_div:
// x / 1e-40 is 1e40 or inf, never x / 0; docs/kernels.md, "Subnormals").
void float_parts(float f, out uint m, out int e)
{
    uint u = floatBitsToUint(f), x = (u >> 23) & 255u;
    m = (u & 0x7fffffu) | (x != 0u ? 0x800000u : 0u);
    e = int(x != 0u ? x : 1u) - 150;
}

// The sign of ma 2^ea / (mb 2^eb) - M 2^E, or 2 where the shift it takes is out of range.
int quotient_side(uint ma, int ea, uint mb, int eb, uint M, int E)
{
    int k = ea - E - eb;
    if (k < 0 || k > 39) return 2;
    uint h1 = k >= 32 ? ma << uint(k - 32) : (k == 0 ? 0u : ma >> uint(32 - k)), l1 = k >= 32 ? 0u : ma << uint(k);
    uint h2, l2;
    umulExtended(M, mb, h2, l2);
    if (h1 != h2) return h1 > h2 ? 1 : -1;
    if (l1 != l2) return l1 > l2 ? 1 : -1;
    return 0;
}

float divide(float a, float b)
{
    float q0 = ortvk_div(a, b);
    float A = abs(a), B = abs(b), q = abs(q0);
    const float lo = 7.888609052210118e-31, hi = 1.2676506002282294e30; // 2^-100, 2^100
    if (!(q > lo && q < hi && A > lo && A < hi && B > lo && B < hi)) return q0;
    uint ma, mb, mq;
    int ea, eb, eq;
    float_parts(A, ma, ea);
    float_parts(B, mb, eb);
    [[unroll]] for (int k = 0; k < 3; k++) {
        float_parts(q, mq, eq);
        if (quotient_side(ma, ea, mb, eb, 2u * mq + 1u, eq - 1) == 1) { // above the midpoint to the next float
            q = uintBitsToFloat(floatBitsToUint(q) + 1u);
            continue;
        }
        // The midpoint to the float below: a quarter ULP down at a power of two.
        int side = mq == 0x800000u ? quotient_side(ma, ea, mb, eb, 4u * mq - 1u, eq - 2)
                                   : quotient_side(ma, ea, mb, eb, 2u * mq - 1u, eq - 1);
        if (side == -1) q = uintBitsToFloat(floatBitsToUint(q) - 1u);
    }
    return (a < 0.0) != (b < 0.0) ? -q : q;
}

// f (the value / scale) into the 8-bit type: clamped to [qmin - zp, qmax - zp] with SSE's max and min (NaN gives
// qmin - zp), rounded half to even, plus zp; the byte's bits.
uint ortvk_saturate(float f, int zp, bool s8)
{
    float lo = float((s8 ? -128 : 0) - zp), hi = float((s8 ? 127 : 255) - zp);
    f = f > lo ? f : lo; // _mm_max_ps(f, lo)
    f = f < hi ? f : hi; // _mm_min_ps(f, hi)
    return uint(int(roundEven(f)) + zp) & 0xffu;
}
