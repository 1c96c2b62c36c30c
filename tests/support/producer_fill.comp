// Compute kernel of the test producer (tests/support/vk_producer.c): writes
// dst[first + i] = base + scale * i for i < count into one storage buffer.
#version 450

// Must match VK_PRODUCER_LOCAL_SIZE in vk_producer.c (dispatch size math).
layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) buffer Dst { float v[]; } dst;

layout(push_constant) uniform Push {
    uint first;   // byte offset / 4
    uint count;
    float base;
    float scale;
} pc;

void main()
{
    // Grid-stride loop: the host caps the group count at the device limit, so
    // one dispatch covers any count.
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < pc.count; i += stride) {
        // precise forbids fusing into an fma, so the host can predict every
        // value bit-exactly with a plain multiply then add.
        precise float v = pc.base + pc.scale * float(i);
        dst.v[pc.first + i] = v;
    }
}
