/* The OrtEp ortvk creates for a session: which device it runs on (from the EP devices ORT selected and the
 * ep.ortvk.* session options), the streams it gives ORT, and the nodes it claims (none yet: ORT's CPU EP runs
 * them and data moves through ortvk's data transfer). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ep/ep.h"
#include "ort/ort_status.h"
#include "ortvk.h"
#include "vk/vk_transfer.h"

typedef struct ortvk_ep {
    OrtEp base; /* first */
    ortvk_factory *factory;
    ortvk_device *device; /* holds a reference */
    const OrtLogger *logger;
    uint64_t host_timeout_ms;
} ortvk_ep;

_Static_assert(offsetof(ortvk_ep, base) == 0, "ORT's base struct comes first");

static ortvk_ep *ep_cast(const OrtEp *base)
{
    return (ortvk_ep *)base;
}

OrtStatus *ortvk_parse_u64(const char *key, const char *text, uint64_t max, uint64_t *value)
{
    if (text == NULL) return NULL;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (text[0] == '\0' || text[0] == '-' || *end != '\0' || errno != 0 || v > max) {
        return ortvk_status(ORT_INVALID_ARGUMENT, "%s = \"%s\" is not a whole number from 0 to %llu", key, text,
                            (unsigned long long)max);
    }
    *value = v;
    return NULL;
}

static const char *ORT_API_CALL ep_get_name(const OrtEp *base)
{
    (void)base;
    return ORTVK_EP_NAME;
}

static OrtStatus *ORT_API_CALL ep_get_capability(OrtEp *base, const OrtGraph *graph, OrtEpGraphSupportInfo *info)
{
    (void)base, (void)graph, (void)info;
    return NULL; /* no device kernels yet: every node stays with ORT's CPU EP */
}

static OrtStatus *ORT_API_CALL ep_compile(OrtEp *base, const OrtGraph **graphs, const OrtNode **fused_nodes,
                                          size_t count, OrtNodeComputeInfo **infos, OrtNode **ep_context_nodes)
{
    (void)base, (void)graphs, (void)fused_nodes, (void)infos, (void)ep_context_nodes;
    return ortvk_status(ORT_NOT_IMPLEMENTED, "Compile was called for %zu graphs, but ortvk claimed no nodes", count);
}

static void ORT_API_CALL ep_release_compute_infos(OrtEp *base, OrtNodeComputeInfo **infos, size_t count)
{
    (void)base, (void)infos, (void)count;
}

static OrtStatus *ORT_API_CALL ep_create_stream(OrtEp *base, const OrtMemoryDevice *memory, OrtSyncStreamImpl **out)
{
    ortvk_ep *ep = ep_cast(base);
    *out = NULL;
    ortvk_device *device = ortvk_device_for_memory(&ep->device, 1, memory);
    if (device == NULL) return NULL; /* not our memory: no stream */
    ortvk_stream *stream = NULL;
    ORTVK_TRY(ortvk_stream_create(device, ep->host_timeout_ms, &stream));
    *out = &stream->base;
    return NULL;
}

/* Reads "ep.ortvk.<key>" into `buffer` (empty when absent). */
static OrtStatus *read_option(const OrtSessionOptions *options, const char *key, char *buffer, size_t size)
{
    char full[128];
    snprintf(full, sizeof(full), "ep.%s.%s", ORTVK_EP_NAME, key);
    buffer[0] = '\0';
    int has = 0;
    ORTVK_TRY(ortvk_ort->HasSessionConfigEntry(options, full, &has));
    if (!has) return NULL;
    ORTVK_TRY(ortvk_ort->GetSessionConfigEntry(options, full, buffer, &size));
    return NULL;
}

/* Picks the device among `candidates` (what ORT selected), honoring ep.ortvk.device_index / device_uuid. */
static OrtStatus *choose_device(ortvk_factory *factory, ortvk_device *const *candidates, size_t count,
                                const OrtSessionOptions *options, ortvk_device **out)
{
    char index_text[32], uuid[80];
    ORTVK_TRY(read_option(options, ORTVK_OPTION_DEVICE_INDEX, index_text, sizeof(index_text)));
    ORTVK_TRY(read_option(options, ORTVK_OPTION_DEVICE_UUID, uuid, sizeof(uuid)));
    *out = candidates[0];
    if (index_text[0] != '\0') {
        uint64_t index = 0;
        ORTVK_TRY(ortvk_parse_u64("ep.ortvk.device_index", index_text, factory->device_count - 1, &index));
        *out = factory->devices[index];
    } else if (uuid[0] != '\0') {
        *out = NULL;
        for (size_t i = 0; i < factory->device_count && *out == NULL; i++) {
            char hex[2 * VK_UUID_SIZE + 1];
            ortvk_uuid_hex(factory->devices[i]->caps.device_uuid, hex);
            if (strcmp(hex, uuid) == 0) *out = factory->devices[i];
        }
        if (*out == NULL)
            return ortvk_status(ORT_INVALID_ARGUMENT, "ep.ortvk.device_uuid = \"%s\" names no ortvk device", uuid);
    } else {
        return NULL;
    }
    for (size_t i = 0; i < count; i++) {
        if (candidates[i] == *out) return NULL;
    }
    return ortvk_status(ORT_INVALID_ARGUMENT,
                        "the ep.ortvk device option names device %u (%s), which is not among the EP devices given "
                        "to the session",
                        (*out)->index, (*out)->caps.props.deviceName);
}

OrtStatus *ortvk_ep_create(ortvk_factory *factory, ortvk_device *const *candidates, size_t count,
                           const OrtSessionOptions *options, const OrtLogger *logger, OrtEp **out)
{
    ortvk_device *device = NULL;
    ORTVK_TRY(choose_device(factory, candidates, count, options, &device));
    char timeout_text[32];
    uint64_t timeout = ORTVK_DEFAULT_HOST_WAIT_TIMEOUT_MS;
    ORTVK_TRY(read_option(options, ORTVK_OPTION_HOST_WAIT_TIMEOUT_MS, timeout_text, sizeof(timeout_text)));
    if (timeout_text[0] != '\0')
        ORTVK_TRY(ortvk_parse_u64("ep.ortvk.host_wait_timeout_ms", timeout_text, UINT32_MAX, &timeout));

    ortvk_ep *ep = calloc(1, sizeof(*ep));
    if (ep == NULL) return ortvk_status(ORT_FAIL, "out of host memory creating the EP");
    ep->base = (OrtEp){
        .ort_version_supported = ortvk_ort_version,
        .GetName = ep_get_name,
        .GetCapability = ep_get_capability,
        .Compile = ep_compile,
        .ReleaseNodeComputeInfos = ep_release_compute_infos,
        .CreateSyncStreamForDevice = ep_create_stream,
    };
    ep->factory = factory;
    ortvk_device_ref(device);
    ep->device = device;
    ep->logger = logger;
    ep->host_timeout_ms = timeout;
    ORTVK_LOG_INFO(logger, "session runs on device %u: %s", device->index, device->caps.props.deviceName);
    *out = &ep->base;
    return NULL;
}

void ortvk_ep_destroy(OrtEp *base)
{
    if (base == NULL) return;
    ortvk_ep *ep = ep_cast(base);
    ortvk_device_unref(ep->device);
    free(ep);
}
