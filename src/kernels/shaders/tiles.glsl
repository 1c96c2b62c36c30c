// Tiles through shared memory, a GPU's form of the matrix products (docs/kernels.md, "Forms per device"), shared by
// the shaders that have it (gemm: MatMul, Gemm, pointwise Conv; conv: the rest of Conv as an implicit GEMM). A
// workgroup computes a 32 x 32 tile of an M x N product over K; invocation t the 4 x 4 block at rows 4 (t / 8),
// columns 4 (t % 8) of it. A's and B's slices of 16 k pass through shared memory, loaded by the 64 invocations
// together along whichever dimension of each is contiguous in memory, so neighbouring invocations read
// neighbouring addresses; elements past M, N or K are loaded as 0 and never summed or stored. Each sum runs over k
// in ascending order, as in the shaders' other forms: on a device that does not fuse multiply-adds the forms agree
// bit for bit. The host keeps K / 16 under lavapipe's loop cap.
//
// Included after common.glsl, with ORTVK_TILES (a constant: whether this pipeline takes the form, else the shared
// arrays shrink to nothing) and the shader's two loaders defined first:
//   float ortvk_tile_a(uint base, uint m, uint k)   A's element (m, k), m < M and k < K
//   float ortvk_tile_b(uint base, uint k, uint n)   B's element (k, n), k < K and n < N
// `base` is what the caller passes through (e.g. a batch entry's offset).

#define ORTVK_TILE 32u
#define ORTVK_TILE_K 16u
// A slice is TILE_K rows of TILE / 4 vec4, each row padded by one vec4: invocations that store neighbouring k of
// one row of A (or column of B) then hit different banks of a GPU's shared memory (2-way rather than 16-way).
#define ORTVK_TILE_ROW (ORTVK_TILE / 4u + 1u)
const uint ORTVK_TILE_VEC4S = ORTVK_TILES ? ORTVK_TILE_K * ORTVK_TILE_ROW : 1u;
shared vec4 ortvk_tile_as[ORTVK_TILE_VEC4S], ortvk_tile_bs[ORTVK_TILE_VEC4S];

// The number of tiles along a dimension of n elements.
uint ortvk_tiles_of(uint n)
{
    return (n + ORTVK_TILE - 1u) / ORTVK_TILE;
}

// This workgroup's tile of `batches` M x N products (the host's ortvk_krun_tiles_invocations: a workgroup a tile,
// columns fastest, then rows, then the batch entry): its first row m0 and column n0 and its batch entry. false for a
// workgroup past the last tile, which then returns as a whole (its barriers stay in uniform control flow).
bool ortvk_tile_of_workgroup(uint M, uint N, uint batches, out uint m0, out uint n0, out uint batch)
{
    uint wg = ortvk_workgroup();
    uint m_tiles = ortvk_tiles_of(M), n_tiles = ortvk_tiles_of(N);
    n0 = (wg % n_tiles) * ORTVK_TILE;
    m0 = ((wg / n_tiles) % m_tiles) * ORTVK_TILE;
    batch = wg / (m_tiles * n_tiles);
    return batch < batches;
}

// The sums of this invocation's 4 x 4 block of the tile at (m0, n0) over k_begin <= k < K: acc[i][j] is output
// (ortvk_tile_row(m0, i), ortvk_tile_column(n0, j)). k_begin is 0, or a multiple of ORTVK_TILE_K where a caller sums
// K in slices. a_along_k: A's elements of one row are contiguous (else those of a column); b_along_n: B's of one
// row. Called in uniform control flow: it holds barriers.
void ortvk_tiles(uint m0, uint n0, uint M, uint N, uint k_begin, uint K, uint a_base, uint b_base, bool a_along_k,
                 bool b_along_n, out vec4 acc[4])
{
    uint t = gl_LocalInvocationID.x, ty = t / (ORTVK_TILE / 4u), tx = t % (ORTVK_TILE / 4u);
    [[unroll]] for (uint i = 0u; i < 4u; i++) acc[i] = vec4(0.0);
    for (uint k0 = k_begin; k0 < K; k0 += ORTVK_TILE_K) {
        // Element e of each slice (TILE_K x TILE values, 8 an invocation).
        [[unroll]] for (uint q = 0u; q < ORTVK_TILE_K * ORTVK_TILE / 64u; q++) {
            uint e = t + 64u * q;
            uint kk = a_along_k ? e % ORTVK_TILE_K : e / ORTVK_TILE;
            uint mm = a_along_k ? e / ORTVK_TILE_K : e % ORTVK_TILE;
            uint m = m0 + mm, k = k0 + kk;
            ortvk_tile_as[kk * ORTVK_TILE_ROW + mm / 4u][mm % 4u] =
                m < M && k < K ? ortvk_tile_a(a_base, m, k) : 0.0;
            kk = b_along_n ? e / ORTVK_TILE : e % ORTVK_TILE_K;
            uint nn = b_along_n ? e % ORTVK_TILE : e / ORTVK_TILE_K, n = n0 + nn;
            k = k0 + kk;
            ortvk_tile_bs[kk * ORTVK_TILE_ROW + nn / 4u][nn % 4u] =
                n < N && k < K ? ortvk_tile_b(b_base, k, n) : 0.0;
        }
        memoryBarrierShared();
        barrier();
        uint kn = min(ORTVK_TILE_K, K - k0);
        [[unroll]] for (uint kk = 0u; kk < ORTVK_TILE_K; kk++) {
            if (kk >= kn) break;
            vec4 a = ortvk_tile_as[kk * ORTVK_TILE_ROW + ty], b = ortvk_tile_bs[kk * ORTVK_TILE_ROW + tx];
            [[unroll]] for (uint i = 0u; i < 4u; i++) acc[i] += a[i] * b;
        }
        barrier(); // every invocation is done with the slices before the next ones are loaded
    }
}

// The output row of acc[i] and the output column of its component j.
uint ortvk_tile_row(uint m0, uint i)
{
    return m0 + 4u * (gl_LocalInvocationID.x / (ORTVK_TILE / 4u)) + i;
}

uint ortvk_tile_column(uint n0, uint j)
{
    return n0 + 4u * (gl_LocalInvocationID.x % (ORTVK_TILE / 4u)) + j;
}
