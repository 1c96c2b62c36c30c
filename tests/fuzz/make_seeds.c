/* Writes the seed corpus of tests/fuzz/fuzz_import.c (tests/fuzz/corpus/): one small input per path worth starting
 * from, each built field by field with fuzz_input.h so that what it exercises is readable here.
 *   usage: make_seeds DIRECTORY      (the fuzz build's test fuzz_seeds_current checks the committed files match) */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_input.h"

#define HOST_TIMELINE_MAGIC UINT64_C(0x6F72766B48544C31) /* ortvk_host_timeline.h: "orvkHTL1" */

static const char *dir;
static int failures;

static void emit(const char *name, const fuzz_input *in)
{
    uint8_t bytes[FUZZ_INPUT_SIZE + FUZZ_PAYLOAD_MAX];
    size_t n = fuzz_encode(in, bytes);
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(bytes, 1, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "make_seeds: cannot write %s: %s\n", path, strerror(errno));
        failures++;
    }
}

/* A float view [32, 32] of a 64 KiB page-aligned host allocation. */
static fuzz_input host_view(void)
{
    fuzz_input in = {0};
    in.flags = FUZZ_F_MEMORY;
    in.mem_type_sel = 0; /* HOST_ALLOCATION */
    in.mem_handle_kind = FUZZ_H_HOST_ALLOC;
    in.mem_size = 65536;
    in.tensor_elem_sel = 1; /* float */
    in.tensor_rank = 2;
    in.dims[0] = 32;
    in.dims[1] = 32;
    in.flags2 = FUZZ_F2_COPY_OUT | FUZZ_F2_COPY_IN;
    return in;
}

/* The vk_producer's exported memory, whole, viewed as one uint8 row that fills the region after a 4 KiB offset. */
static fuzz_input producer_view(void)
{
    fuzz_input in = {0};
    in.flags = FUZZ_F_MEMORY;
    in.mem_type_sel = 1; /* MEMORY_OPAQUE_FD */
    in.mem_handle_kind = FUZZ_H_PRODUCER;
    in.mem_size_mode = 0x30; /* natural size, offset (raw % 1024) * 4 */
    in.mem_offset = 1024;    /* -> 4096 */
    in.tensor_elem_sel = 2;  /* uint8 */
    in.tensor_rank = 1;
    in.tensor_dim_mode = 3; /* fill the region */
    in.flags2 = FUZZ_F2_COPY_OUT;
    return in;
}

/* A host timeline semaphore with a few operations on the stream. */
static fuzz_input timeline(void)
{
    fuzz_input in = {0};
    in.flags = FUZZ_F_SEMAPHORE | FUZZ_F_SATISFY;
    in.sem_type_sel = 0; /* ORTVK_EXTERNAL_SEMAPHORE_HOST_TIMELINE */
    in.sem_handle_kind = FUZZ_H_HOST_TIMELINE;
    in.sem_op_count = 5;
    in.ops[0] = (fuzz_op){FUZZ_OP_WAIT, 1};
    in.ops[1] = (fuzz_op){FUZZ_OP_SIGNAL, 2};
    in.ops[2] = (fuzz_op){FUZZ_OP_APP_SIGNAL, 3};
    in.ops[3] = (fuzz_op){FUZZ_OP_WAIT_THEN_APP_SIGNAL, 4};
    in.ops[4] = (fuzz_op){FUZZ_OP_SIGNAL, 1}; /* does not increase: must be refused */
    return in;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s DIRECTORY\n", argv[0]);
        return 2;
    }
    dir = argv[1];
    fuzz_input in;

    /* Memory: the paths that succeed, with copies checked byte for byte. */
    in = host_view();
    emit("host_alloc_copy", &in);

    in = host_view(); /* copies on the stream, two overlapping views, the handle released before its views */
    in.flags |= FUZZ_F_SECOND_VIEW | FUZZ_F_RELEASE_MEMORY_FIRST;
    in.flags2 |= FUZZ_F2_ON_STREAM;
    emit("host_alloc_stream_two_views", &in);

    in = host_view(); /* one allocation imported twice, the first import released at once (address-table alias) */
    in.flags |= FUZZ_F_TWO_IMPORTS;
    in.flags2 = FUZZ_F2_COPY_OUT | FUZZ_F2_COPY_IN;
    emit("host_alloc_imported_twice", &in);

    in = producer_view();
    emit("opaque_fd_producer_copy", &in);

    in = producer_view(); /* size_bytes 4 KiB beyond the allocation: lavapipe refuses (and closes the FD itself) */
    in.mem_size_mode = 0x02;
    in.mem_size = 4096;
    emit("opaque_fd_producer_oversize", &in);

    /* Memory: handles that are not what they claim to be. */
    in = producer_view();
    in.mem_handle_kind = FUZZ_H_DEVNULL;
    in.mem_size_mode = 0x01;
    in.mem_size = 1u << 20;
    emit("opaque_fd_devnull", &in);

    in = producer_view(); /* a sealed memfd whose first bytes look like a lavapipe memory header */
    in.mem_handle_kind = FUZZ_H_MEMFD;
    in.mem_size = 65536 + 64;
    in.mem_seals = 0x6; /* SHRINK | GROW */
    in.payload_len = 32;
    for (int i = 0; i < 32; i++) in.payload[i] = (uint8_t)(i < 8 ? (i == 1 ? 1 : 0) : 0xAB);
    emit("opaque_fd_memfd_forged_header", &in);

    in = host_view(); /* raw fields: unknown version and type, a misaligned address, an offset past the end */
    in.mem_version_sel = FUZZ_VERSION_RAW;
    in.mem_version_raw = 7;
    in.mem_type_sel = 2;
    in.mem_type_raw = 0x6F766B77;
    in.mem_misalign = 1;
    in.mem_size_mode = 0x11;
    in.mem_size = 65536;
    in.mem_offset = 65536;
    emit("memory_bad_descriptor", &in);

    in = host_view(); /* dimensions: negative, huge, rank 12, misaligned and out-of-region offsets */
    in.tensor_rank = 12;
    in.tensor_dim_mode = 1;
    for (int i = 0; i < FUZZ_MAX_RANK; i++) in.dims[i] = i % 3 == 0 ? -1 : (i % 3 == 1 ? INT64_MAX : 3);
    in.tensor_offset_mode = 1;
    in.tensor_offset = 2;
    in.tensor_elem_sel = 200;
    in.tensor_elem_raw = 8; /* string */
    emit("tensor_bad_descriptor", &in);

    /* Semaphores. */
    in = timeline();
    emit("host_timeline_ops", &in);

    in = timeline(); /* a wait nobody satisfies, the handle released while it is queued */
    in.flags = FUZZ_F_SEMAPHORE | FUZZ_F_RELEASE_SEM_EARLY;
    in.sem_op_count = 2;
    in.ops[0] = (fuzz_op){FUZZ_OP_WAIT, 100};
    in.ops[1] = (fuzz_op){FUZZ_OP_SIGNAL, 101};
    emit("host_timeline_unsatisfied_released", &in);

    in = timeline(); /* a memfd forged into a valid host timeline: sealed, 4096 bytes, magic and layout version */
    in.sem_handle_kind = FUZZ_H_MEMFD;
    in.sem_handle_raw = 4096 | (UINT64_C(0x6) << 16); /* size 4096, SHRINK | GROW */
    in.payload_len = 16;
    fuzz_put_le(in.payload, HOST_TIMELINE_MAGIC, 8);
    fuzz_put_le(in.payload + 8, 1, 4);
    emit("host_timeline_forged_memfd", &in);

    in = timeline(); /* the producer's memory FD as a Vulkan timeline semaphore, and a pipe as a host timeline */
    in.sem_type_sel = 1;
    in.sem_handle_kind = FUZZ_H_PRODUCER;
    emit("vk_timeline_from_memory_fd", &in);
    in.sem_type_sel = 0;
    in.sem_handle_kind = FUZZ_H_PIPE;
    emit("host_timeline_pipe", &in);

    in = producer_view(); /* both parts at once, copies on the stream behind the semaphore operations */
    in.flags |= FUZZ_F_SEMAPHORE | FUZZ_F_SATISFY | FUZZ_F_SECOND_VIEW;
    in.flags2 |= FUZZ_F2_ON_STREAM;
    in.sem_handle_kind = FUZZ_H_HOST_TIMELINE;
    in.sem_op_count = 2;
    in.ops[0] = (fuzz_op){FUZZ_OP_WAIT, 1};
    in.ops[1] = (fuzz_op){FUZZ_OP_SIGNAL, 7};
    emit("memory_and_semaphore", &in);

    return failures ? 1 : 0;
}
