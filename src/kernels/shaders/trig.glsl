// Trigonometric and hyperbolic functions for the unary shader, accurate over the whole float range: sin and cos
// reduce their argument by pi/2 exactly (Payne-Hanek: the bits of 2/pi that matter, multiplied in 32-bit integer
// arithmetic), so that sin(1e30) is as right as sin(1); the rest build on them and on common.glsl's exp/log.
// Included after common.glsl.

// 2/pi in 32-bit words, one zero word first (arguments below 2^25 read bits from before 2/pi's point).
const uint ORTVK_TWO_OVER_PI[9] = uint[9](0u, 0xA2F9836Eu, 0x4E441529u, 0xFC2757D1u, 0xF534DDC0u, 0xDB629599u,
                                          0x3C439041u, 0xFE5163ABu, 0xDEBBC561u);

// 32 bits of the table from bit `j` on (j < 9 * 32 - 32).
uint ortvk_pi_bits(int j)
{
    int k = j >> 5, b = j & 31;
    uint w = ORTVK_TWO_OVER_PI[k];
    return b == 0 ? w : (w << uint(b)) | (ORTVK_TWO_OVER_PI[k + 1] >> uint(32 - b));
}

// |x| (finite, >= pi/4) = (q + r / (pi/2)) * pi/2 with q an integer (mod 4 here) and |r| <= pi/4: r returned.
// x = m * 2^s with m a 24-bit integer; x * 2/pi mod 4 = (m * W mod 2^96) * 2^-94, where W holds the 96 bits of 2/pi
// from bit s - 2 on (the bits before it make multiples of 4).
float ortvk_reduce_pio2(float ax, out uint q)
{
    uint bits = floatBitsToUint(ax);
    int s = int(bits >> 23) - 150;
    uint m = (bits & 0x7fffffu) | 0x800000u;
    int j = s - 2 + 32; // >= 6 for |x| >= pi/4; <= 134 for the largest float
    uint w0 = ortvk_pi_bits(j), w1 = ortvk_pi_bits(j + 32), w2 = ortvk_pi_bits(j + 64);
    uint h0, l0, h1, l1, h2, l2;
    umulExtended(m, w0, h0, l0);
    umulExtended(m, w1, h1, l1);
    umulExtended(m, w2, h2, l2);
    uint r2 = l2, c;
    uint r1 = uaddCarry(l1, h2, c);
    uint r0 = l0 + h1 + c;
    q = r0 >> 30;
    uint f0 = r0 & 0x3fffffffu, f1 = r1, f2 = r2; // the fraction, 94 bits
    float sign = 1.0;
    if ((f0 & 0x20000000u) != 0u) { // fraction >= 1/2: round the quadrant up and take 1 - fraction
        q += 1u;
        sign = -1.0;
        uint b1, b2;
        f2 = usubBorrow(0u, f2, b2);
        f1 = usubBorrow(0u, f1, b1);
        f1 = usubBorrow(f1, b2, b2);
        f0 = (0x40000000u - f0 - b1 - b2) & 0x3fffffffu;
    }
    const float two_m32 = 2.3283064365386963e-10, two_m30 = 9.313225746154785e-10;
    precise float f = (float(f0) + (float(f1) + float(f2) * two_m32) * two_m32) * two_m30;
    precise float r = f * 1.57079632679489661923;
    return sign * r;
}

// sin and cos of |r| <= pi/4 (Cephes' single-precision polynomials, about 1 ULP).
float ortvk_sin_poly(float r)
{
    precise float z = r * r;
    precise float p = ((-1.9515295891e-4 * z + 8.3321608736e-3) * z - 1.6666654611e-1) * z * r + r;
    return p;
}

float ortvk_cos_poly(float r)
{
    precise float z = r * r;
    precise float p = ((2.443315711809948e-5 * z - 1.388731625493765e-3) * z + 4.166664568298827e-2) * z * z -
                      0.5 * z + 1.0;
    return p;
}

// sin (cosine: add one quadrant).
float ortvk_sincos(float x, bool cosine)
{
    if (ortvk_isnan(x) || abs(x) == 1.0 / 0.0) return ORTVK_NAN;
    float ax = abs(x);
    uint q = 0u;
    float r = ax < 0.78539816 ? ax : ortvk_reduce_pio2(ax, q);
    q += cosine ? 1u : 0u;
    float v = (q & 1u) != 0u ? ortvk_cos_poly(r) : ortvk_sin_poly(r);
    if ((q & 2u) != 0u) v = -v;
    return (!cosine && x < 0.0) || (!cosine && floatBitsToUint(x) == 0x80000000u) ? -v : v;
}

float ortvk_sin(float x) { return ortvk_sincos(x, false); }
float ortvk_cos(float x) { return ortvk_sincos(x, true); }

// tan = sin / cos, one reduction.
float ortvk_tan(float x)
{
    if (ortvk_isnan(x) || abs(x) == 1.0 / 0.0) return ORTVK_NAN;
    float ax = abs(x);
    uint q = 0u;
    float r = ax < 0.78539816 ? ax : ortvk_reduce_pio2(ax, q);
    float s = ortvk_sin_poly(r), c = ortvk_cos_poly(r);
    float t = (q & 1u) != 0u ? -c / s : s / c;
    return x < 0.0 || floatBitsToUint(x) == 0x80000000u ? -t : t;
}

// atan of |x| (Cephes' atanf: reduced to |x| <= tan(pi/8), about 2 ULP), the sign restored.
float ortvk_atan(float x)
{
    if (ortvk_isnan(x)) return x;
    precise float ax = abs(x), y = 0.0, t = ax;
    if (ax > 2.414213562373095) {
        y = 1.5707963267948966;
        t = -1.0 / ax;
    } else if (ax > 0.4142135623730950) {
        y = 0.7853981633974483;
        t = (ax - 1.0) / (ax + 1.0);
    }
    precise float z = t * t;
    precise float v = y + ((((8.05374449538e-2 * z - 1.38776856032e-1) * z + 1.99777106478e-1) * z -
                           3.33329491539e-1) * z * t + t);
    return x < 0.0 || floatBitsToUint(x) == 0x80000000u ? -v : v;
}

// asin and acos through atan, in forms without cancellation near |x| = 1: asin x = atan(x / sqrt((1 - x)(1 + x))),
// acos x = 2 atan(sqrt((1 - x) / (1 + x))). NaN outside [-1, 1].
float ortvk_asin(float x)
{
    if (ortvk_isnan(x) || abs(x) > 1.0) return ORTVK_NAN;
    if (abs(x) == 1.0) return x * 1.5707963267948966;
    precise float d = sqrt((1.0 - x) * (1.0 + x));
    return ortvk_atan(x / d);
}

float ortvk_acos(float x)
{
    if (ortvk_isnan(x) || abs(x) > 1.0) return ORTVK_NAN;
    if (x == -1.0) return 3.14159265358979323846;
    precise float t = sqrt((1.0 - x) / (1.0 + x));
    return 2.0 * ortvk_atan(t);
}

// sinh and cosh from expm1 and exp; past |x| = 20 both are exp(|x| - ln 2) (so that cosh(89) does not overflow).
float ortvk_sinh(float x)
{
    if (ortvk_isnan(x)) return x;
    float ax = abs(x), v;
    if (ax > 20.0) {
        precise float e = ax - 0.69314718055994531;
        v = ortvk_exp(e);
    } else {
        precise float u = ortvk_expm1(ax);
        v = 0.5 * (u + u / (u + 1.0));
    }
    return x < 0.0 || floatBitsToUint(x) == 0x80000000u ? -v : v;
}

float ortvk_cosh(float x)
{
    if (ortvk_isnan(x)) return x;
    float ax = abs(x);
    if (ax > 20.0) {
        precise float e = ax - 0.69314718055994531;
        return ortvk_exp(e);
    }
    precise float e = ortvk_exp(ax);
    return 0.5 * (e + 1.0 / e);
}

// asinh |x| = log1p(|x| + x^2 / (1 + sqrt(1 + x^2))), or log |x| + ln 2 past 2^12 (x^2 would lose 1 + x^2's 1).
float ortvk_asinh(float x)
{
    if (ortvk_isnan(x)) return x;
    float ax = abs(x), v;
    if (ax > 4096.0) {
        precise float l = ortvk_log(ax) + 0.69314718055994531;
        v = l;
    } else {
        precise float z = ax * ax;
        precise float t = ax + z / (1.0 + sqrt(1.0 + z));
        v = ortvk_log1p(t);
    }
    return x < 0.0 || floatBitsToUint(x) == 0x80000000u ? -v : v;
}

// acosh x = log1p(t + sqrt(2t + t^2)) with t = x - 1 (exact for x near 1), or log x + ln 2 past 2^12. NaN below 1.
float ortvk_acosh(float x)
{
    if (ortvk_isnan(x) || x < 1.0) return ORTVK_NAN;
    if (x > 4096.0) {
        precise float l = ortvk_log(x) + 0.69314718055994531;
        return l;
    }
    precise float t = x - 1.0;
    precise float u = t + sqrt(2.0 * t + t * t);
    return ortvk_log1p(u);
}

// atanh x = log1p(2x / (1 - x)) / 2 for |x| (sign restored); NaN beyond 1, infinite at 1.
float ortvk_atanh(float x)
{
    if (ortvk_isnan(x) || abs(x) > 1.0) return ORTVK_NAN;
    float ax = abs(x);
    precise float t = 2.0 * ax / (1.0 - ax);
    float v = ax == 1.0 ? 1.0 / 0.0 : 0.5 * ortvk_log1p(t);
    return x < 0.0 || floatBitsToUint(x) == 0x80000000u ? -v : v;
}
