#version 450
// Renders one frame of text as the input PP-OCR's text detector expects: NCHW float32 [1,3,H,W], each channel
// (pixel / 255 - mean) / std. A light background, dark text from the 5x7 bitmap font below, scaled up by an
// integer factor per line. One invocation per pixel writes its three channels. Used by vk_producer_draw_text.

layout(local_size_x = 8, local_size_y = 8) in;

layout(std430, set = 0, binding = 0) buffer Frame { float data[]; };

// Must match struct vk_producer_text_push in vk_producer.c (112 bytes).
#define MAX_LINES 3
#define MAX_CHARS 16 // per line: 4 ASCII bytes per uint, first character in the lowest byte
layout(push_constant) uniform Push {
    uint first;               // index of the frame's first float in data[]
    uint width, height;
    uint frame;               // the frame number: tints the background a little
    ivec4 line[MAX_LINES];    // x, y (top-left, pixels), scale (pixels per font pixel, 0 = unused), length
    uint text[MAX_LINES * MAX_CHARS / 4];
} pc;

// The 5x7 font: one byte per row, bit 4 = the leftmost column; rows 0-3 in .x (row 0 in the lowest byte), rows
// 4-6 in .y. A switch rather than a constant array: lavapipe compiles large indexed constant arrays very slowly.
uvec2 glyph(uint c)
{
    switch (c) {
    case  48u: return uvec2(0x1513110Eu, 0x0E1119u); // 0
    case  49u: return uvec2(0x04040C04u, 0x0E0404u); // 1
    case  50u: return uvec2(0x0201110Eu, 0x1F0804u); // 2
    case  51u: return uvec2(0x0204021Fu, 0x0E1101u); // 3
    case  52u: return uvec2(0x120A0602u, 0x02021Fu); // 4
    case  53u: return uvec2(0x011E101Fu, 0x0E1101u); // 5
    case  54u: return uvec2(0x1E100806u, 0x0E1111u); // 6
    case  55u: return uvec2(0x0402011Fu, 0x080808u); // 7
    case  56u: return uvec2(0x0E11110Eu, 0x0E1111u); // 8
    case  57u: return uvec2(0x0F11110Eu, 0x0C0201u); // 9
    case  65u: return uvec2(0x1F11110Eu, 0x111111u); // A
    case  66u: return uvec2(0x1E11111Eu, 0x1E1111u); // B
    case  67u: return uvec2(0x1010110Eu, 0x0E1110u); // C
    case  68u: return uvec2(0x1111121Cu, 0x1C1211u); // D
    case  69u: return uvec2(0x1E10101Fu, 0x1F1010u); // E
    case  70u: return uvec2(0x1E10101Fu, 0x101010u); // F
    case  71u: return uvec2(0x1710110Eu, 0x0F1111u); // G
    case  72u: return uvec2(0x1F111111u, 0x111111u); // H
    case  73u: return uvec2(0x0404040Eu, 0x0E0404u); // I
    case  74u: return uvec2(0x02020207u, 0x0C1202u); // J
    case  75u: return uvec2(0x18141211u, 0x111214u); // K
    case  76u: return uvec2(0x10101010u, 0x1F1010u); // L
    case  77u: return uvec2(0x15151B11u, 0x111111u); // M
    case  78u: return uvec2(0x15191111u, 0x111113u); // N
    case  79u: return uvec2(0x1111110Eu, 0x0E1111u); // O
    case  80u: return uvec2(0x1E11111Eu, 0x101010u); // P
    case  81u: return uvec2(0x1111110Eu, 0x0D1215u); // Q
    case  82u: return uvec2(0x1E11111Eu, 0x111214u); // R
    case  83u: return uvec2(0x0E10100Fu, 0x1E0101u); // S
    case  84u: return uvec2(0x0404041Fu, 0x040404u); // T
    case  85u: return uvec2(0x11111111u, 0x0E1111u); // U
    case  86u: return uvec2(0x0A111111u, 0x04040Au); // V
    case  87u: return uvec2(0x15111111u, 0x0A1515u); // W
    case  88u: return uvec2(0x040A1111u, 0x11110Au); // X
    case  89u: return uvec2(0x040A1111u, 0x040404u); // Y
    case  90u: return uvec2(0x0402011Fu, 0x1F1008u); // Z
    case  46u: return uvec2(0x00000000u, 0x0C0C00u); // .
    case  44u: return uvec2(0x00000000u, 0x08040Cu); // ,
    case  58u: return uvec2(0x000C0C00u, 0x000C0Cu); // :
    case  45u: return uvec2(0x1F000000u, 0x000000u); // -
    case  33u: return uvec2(0x04040404u, 0x040004u); // !
    case  47u: return uvec2(0x04020100u, 0x001008u); // /
    case  63u: return uvec2(0x0201110Eu, 0x040004u); // ?
    case  35u: return uvec2(0x0A1F0A0Au, 0x0A0A1Fu); // #
    case  37u: return uvec2(0x04021918u, 0x031308u); // %
    case  40u: return uvec2(0x08080402u, 0x020408u); // (
    case  41u: return uvec2(0x02020408u, 0x080402u); // )
    case  43u: return uvec2(0x1F040400u, 0x000404u); // +
    case  61u: return uvec2(0x001F0000u, 0x00001Fu); // =
    default: return uvec2(0u); // space, and anything the font lacks
    }
}

// True when pixel p falls on a stroke of line l. Cells are 6x8 font pixels: the glyph plus one of spacing.
bool ink(ivec2 p, int l)
{
    int scale = pc.line[l].z;
    if (scale <= 0) return false;
    ivec2 f = p - pc.line[l].xy;
    if (f.x < 0 || f.y < 0) return false;
    f /= scale; // now in font pixels
    int cell = f.x / 6, col = f.x % 6, row = f.y;
    if (cell >= pc.line[l].w || col >= 5 || row >= 7) return false;
    int n = l * MAX_CHARS + cell;
    uvec2 g = glyph((pc.text[n / 4] >> (8 * (n % 4))) & 0xFFu);
    uint bits = row < 4 ? g.x >> (8 * row) : g.y >> (8 * (row - 4));
    return ((bits >> (4 - col)) & 1u) != 0u;
}

void main()
{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= int(pc.width) || p.y >= int(pc.height)) return;

    // Paper: a light, slightly warm gradient whose tint drifts with the frame number.
    float t = float(p.y) / float(pc.height);
    float drift = 0.03 * sin(float(pc.frame) * 0.7);
    vec3 rgb = vec3(0.96 - 0.04 * t + drift, 0.94 - 0.03 * t, 0.90 + 0.02 * t - drift);
    for (int l = 0; l < MAX_LINES; l++)
        if (ink(p, l)) rgb = vec3(0.08, 0.09, 0.14); // ink: near black, a little blue

    // PP-OCR's normalisation, per channel (RGB order).
    const vec3 mean = vec3(0.485, 0.456, 0.406);
    const vec3 std = vec3(0.229, 0.224, 0.225);
    vec3 v = (clamp(rgb, 0.0, 1.0) - mean) / std;
    uint plane = pc.width * pc.height;
    uint i = pc.first + uint(p.y) * pc.width + uint(p.x);
    data[i] = v.r;
    data[i + plane] = v.g;
    data[i + 2u * plane] = v.b;
}
