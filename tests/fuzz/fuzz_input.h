/* The input format of tests/fuzz/fuzz_import.c, shared with tests/fuzz/make_seeds.c that writes the seed corpus.
 *
 * An input is FUZZ_INPUT_SIZE bytes of fixed-layout little-endian fields (shorter inputs read as if padded with
 * zeros), optionally followed by a payload: up to FUZZ_PAYLOAD_MAX bytes written at the start of the files and
 * memfds the harness makes (so the fuzzer can try to forge lavapipe's memory header or a host timeline's magic).
 *
 *   off  size  field
 *     0     1  flags             FUZZ_F_* below
 *     1     1  mem_type_sel      0 HOST_ALLOCATION, 1 MEMORY_OPAQUE_FD, 2 mem_type_raw, 3-5 D3D12_RESOURCE/HEAP/WIN32
 *     2     1  mem_version_sel   FUZZ_VERSION_* (mod 5)
 *     3     1  mem_handle_kind   FUZZ_H_* (mod FUZZ_H_COUNT): what native_handle is
 *     4     1  mem_size_mode     low nibble: size_bytes (0 natural, 1 raw, 2 natural + (int16)raw, 3 zero);
 *                                high nibble: offset_bytes (0 zero, 1 raw, 2 raw % (size+1), 3 (raw % 1024) * 4)
 *     5     1  mem_misalign      bytes added to a host allocation's address
 *     6     1  mem_seals         memfd seals (bit 0 SEAL, 1 SHRINK, 2 GROW, 3 WRITE), applied after the payload
 *     7     1  tensor_elem_sel   0-16 that ONNX element type, else tensor_elem_raw
 *     8     4  mem_type_raw
 *    12     4  mem_version_raw
 *    16     8  mem_size          raw size (also the size of files/memfds, mod 1 MiB, and of host allocations,
 *                                mod 4 MiB)
 *    24     8  mem_offset
 *    32     8  mem_handle_raw    native_handle for FUZZ_H_RAW
 *    40     1  tensor_version_sel
 *    41     1  tensor_rank       mod 13 (ortvk accepts up to 8)
 *    42     1  tensor_dim_mode   0 dims are (int16)raw, 1 raw int64, 2 (uint8)raw, 3 [n, 1, 1, ...] filling the region
 *    43     1  tensor_offset_mode 0 zero, 1 raw, 2 raw % (region+1), 3 (raw % 64) * element size
 *    44     4  tensor_elem_raw
 *    48     4  tensor_version_raw
 *    52     1  flags2            FUZZ_F2_* below
 *    53     3  reserved
 *    56     8  tensor_offset
 *    64    96  dims[12]          int64 each
 *   160     1  sem_type_sel      0 ORTVK_EXTERNAL_SEMAPHORE_HOST_TIMELINE, 1 VK_TIMELINE_SEMAPHORE_OPAQUE_FD, 2 raw,
 *                                3 D3D12_FENCE, 4 VK_TIMELINE_SEMAPHORE_WIN32
 *   161     1  sem_version_sel
 *   162     1  sem_handle_kind   FUZZ_H_* (a memfd here is sized (sem_handle_raw & 0x3fff), sealed by bits 16-19)
 *   163     1  sem_op_count      mod (FUZZ_MAX_OPS + 1)
 *   164     4  sem_type_raw
 *   168     4  sem_version_raw
 *   172     4  reserved
 *   176     8  sem_handle_raw
 *   184    72  ops[8]            { uint8 op (FUZZ_OP_*, mod 4), uint64 value } packed, 9 bytes each
 *   256        payload (optional)
 */
#ifndef ORTVK_FUZZ_INPUT_H
#define ORTVK_FUZZ_INPUT_H

#include <stdint.h>
#include <string.h>

#define FUZZ_INPUT_SIZE 256
#define FUZZ_PAYLOAD_MAX 64
#define FUZZ_MAX_RANK 12
#define FUZZ_MAX_OPS 8

/* flags */
#define FUZZ_F_MEMORY 0x01            /* run the memory part */
#define FUZZ_F_SEMAPHORE 0x02         /* run the semaphore part */
#define FUZZ_F_SECOND_VIEW 0x04       /* a second tensor view of the same handle */
#define FUZZ_F_NULL_SHAPE 0x08        /* tensor descriptor's shape = NULL */
#define FUZZ_F_RELEASE_MEMORY_FIRST 0x10 /* release the memory handle before its tensors */
#define FUZZ_F_SATISFY 0x20           /* after the ops, the application signals its timeline to UINT64_MAX */
#define FUZZ_F_RELEASE_SEM_EARLY 0x40 /* release the semaphore handle right after queuing the ops */
#define FUZZ_F_TWO_IMPORTS 0x80       /* import the memory twice, view the second, release the first at once */

/* flags2 */
#define FUZZ_F2_COPY_OUT 0x01  /* CopyTensors the view into host memory and compare with the source bytes */
#define FUZZ_F2_COPY_IN 0x02   /* CopyTensors a host pattern into the view (host allocations) and compare */
#define FUZZ_F2_ON_STREAM 0x04 /* copies go on the harness's stream instead of none */

/* Handle kinds: what the descriptor's native_handle is. */
enum {
    FUZZ_H_CLOSED,       /* a descriptor number that was just closed */
    FUZZ_H_RAW,          /* the raw 64-bit value from the input */
    FUZZ_H_PIPE,         /* read end of a pipe */
    FUZZ_H_SOCKET,       /* one end of a socketpair */
    FUZZ_H_FILE,         /* unlinked regular file, payload then zeros up to its size */
    FUZZ_H_MEMFD,        /* memfd, payload, sized, then sealed as the input says */
    FUZZ_H_DEVNULL,      /* /dev/null */
    FUZZ_H_PRODUCER,     /* dup of a real opaque FD exported by a vk_producer buffer (made once) */
    FUZZ_H_HOST_TIMELINE,/* fd of a fresh ortvk host timeline (value 0) */
    FUZZ_H_HOST_ALLOC,   /* address of a fresh page-aligned mapping (+ mem_misalign) */
    FUZZ_H_NULL,         /* NULL */
    FUZZ_H_DIRECTORY,    /* an O_DIRECTORY fd */
    FUZZ_H_COUNT
};

enum { FUZZ_OP_WAIT, FUZZ_OP_SIGNAL, FUZZ_OP_APP_SIGNAL, FUZZ_OP_WAIT_THEN_APP_SIGNAL, FUZZ_OP_COUNT };

/* Version selectors: 0 the runtime's API version, 1 24 (oldest accepted), 2 the raw value, 3 zero, 4 API + 1. */
enum { FUZZ_VERSION_API, FUZZ_VERSION_24, FUZZ_VERSION_RAW, FUZZ_VERSION_ZERO, FUZZ_VERSION_NEXT, FUZZ_VERSION_COUNT };

typedef struct fuzz_op {
    uint8_t op;
    uint64_t value;
} fuzz_op;

typedef struct fuzz_input {
    uint8_t flags, mem_type_sel, mem_version_sel, mem_handle_kind, mem_size_mode, mem_misalign, mem_seals;
    uint8_t tensor_elem_sel;
    uint32_t mem_type_raw, mem_version_raw;
    uint64_t mem_size, mem_offset, mem_handle_raw;
    uint8_t tensor_version_sel, tensor_rank, tensor_dim_mode, tensor_offset_mode;
    uint32_t tensor_elem_raw, tensor_version_raw;
    uint8_t flags2;
    uint64_t tensor_offset;
    int64_t dims[FUZZ_MAX_RANK];
    uint8_t sem_type_sel, sem_version_sel, sem_handle_kind, sem_op_count;
    uint32_t sem_type_raw, sem_version_raw;
    uint64_t sem_handle_raw;
    fuzz_op ops[FUZZ_MAX_OPS];
    uint8_t payload[FUZZ_PAYLOAD_MAX];
    size_t payload_len;
} fuzz_input;

static inline uint64_t fuzz_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

static inline void fuzz_put_le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++, v >>= 8) p[i] = (uint8_t)v;
}

static inline void fuzz_decode(const uint8_t *data, size_t size, fuzz_input *in)
{
    uint8_t b[FUZZ_INPUT_SIZE] = {0};
    memcpy(b, data, size < FUZZ_INPUT_SIZE ? size : FUZZ_INPUT_SIZE);
    memset(in, 0, sizeof(*in));
    in->flags = b[0];
    in->mem_type_sel = b[1];
    in->mem_version_sel = b[2];
    in->mem_handle_kind = b[3];
    in->mem_size_mode = b[4];
    in->mem_misalign = b[5];
    in->mem_seals = b[6];
    in->tensor_elem_sel = b[7];
    in->mem_type_raw = (uint32_t)fuzz_le(b + 8, 4);
    in->mem_version_raw = (uint32_t)fuzz_le(b + 12, 4);
    in->mem_size = fuzz_le(b + 16, 8);
    in->mem_offset = fuzz_le(b + 24, 8);
    in->mem_handle_raw = fuzz_le(b + 32, 8);
    in->tensor_version_sel = b[40];
    in->tensor_rank = b[41];
    in->tensor_dim_mode = b[42];
    in->tensor_offset_mode = b[43];
    in->tensor_elem_raw = (uint32_t)fuzz_le(b + 44, 4);
    in->tensor_version_raw = (uint32_t)fuzz_le(b + 48, 4);
    in->flags2 = b[52];
    in->tensor_offset = fuzz_le(b + 56, 8);
    for (int i = 0; i < FUZZ_MAX_RANK; i++) in->dims[i] = (int64_t)fuzz_le(b + 64 + 8 * i, 8);
    in->sem_type_sel = b[160];
    in->sem_version_sel = b[161];
    in->sem_handle_kind = b[162];
    in->sem_op_count = b[163];
    in->sem_type_raw = (uint32_t)fuzz_le(b + 164, 4);
    in->sem_version_raw = (uint32_t)fuzz_le(b + 168, 4);
    in->sem_handle_raw = fuzz_le(b + 176, 8);
    for (int i = 0; i < FUZZ_MAX_OPS; i++) {
        in->ops[i].op = b[184 + 9 * i];
        in->ops[i].value = fuzz_le(b + 185 + 9 * i, 8);
    }
    if (size > FUZZ_INPUT_SIZE) {
        in->payload_len = size - FUZZ_INPUT_SIZE;
        if (in->payload_len > FUZZ_PAYLOAD_MAX) in->payload_len = FUZZ_PAYLOAD_MAX;
        memcpy(in->payload, data + FUZZ_INPUT_SIZE, in->payload_len);
    }
}

/* The inverse of fuzz_decode; returns the number of bytes written to out (FUZZ_INPUT_SIZE + payload). */
static inline size_t fuzz_encode(const fuzz_input *in, uint8_t out[FUZZ_INPUT_SIZE + FUZZ_PAYLOAD_MAX])
{
    uint8_t *b = out;
    memset(b, 0, FUZZ_INPUT_SIZE);
    b[0] = in->flags;
    b[1] = in->mem_type_sel;
    b[2] = in->mem_version_sel;
    b[3] = in->mem_handle_kind;
    b[4] = in->mem_size_mode;
    b[5] = in->mem_misalign;
    b[6] = in->mem_seals;
    b[7] = in->tensor_elem_sel;
    fuzz_put_le(b + 8, in->mem_type_raw, 4);
    fuzz_put_le(b + 12, in->mem_version_raw, 4);
    fuzz_put_le(b + 16, in->mem_size, 8);
    fuzz_put_le(b + 24, in->mem_offset, 8);
    fuzz_put_le(b + 32, in->mem_handle_raw, 8);
    b[40] = in->tensor_version_sel;
    b[41] = in->tensor_rank;
    b[42] = in->tensor_dim_mode;
    b[43] = in->tensor_offset_mode;
    fuzz_put_le(b + 44, in->tensor_elem_raw, 4);
    fuzz_put_le(b + 48, in->tensor_version_raw, 4);
    b[52] = in->flags2;
    fuzz_put_le(b + 56, in->tensor_offset, 8);
    for (int i = 0; i < FUZZ_MAX_RANK; i++) fuzz_put_le(b + 64 + 8 * i, (uint64_t)in->dims[i], 8);
    b[160] = in->sem_type_sel;
    b[161] = in->sem_version_sel;
    b[162] = in->sem_handle_kind;
    b[163] = in->sem_op_count;
    fuzz_put_le(b + 164, in->sem_type_raw, 4);
    fuzz_put_le(b + 168, in->sem_version_raw, 4);
    fuzz_put_le(b + 176, in->sem_handle_raw, 8);
    for (int i = 0; i < FUZZ_MAX_OPS; i++) {
        b[184 + 9 * i] = in->ops[i].op;
        fuzz_put_le(b + 185 + 9 * i, in->ops[i].value, 8);
    }
    size_t n = in->payload_len > FUZZ_PAYLOAD_MAX ? FUZZ_PAYLOAD_MAX : in->payload_len;
    memcpy(b + FUZZ_INPUT_SIZE, in->payload, n);
    return FUZZ_INPUT_SIZE + n;
}

#endif
