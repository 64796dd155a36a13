// N-body step in the style of the PyOpenCL / AMD SDK examples: float4 positions
// (w = mass), a tile of bodies staged in local memory.
#define SOFTENING 1e-3f

__kernel void nbody_step(__global const float4 *pos, __global const float4 *vel,
                         __global float4 *new_pos, __global float4 *new_vel,
                         __local float4 *tile, const int n, const float dt)
{
    const int gid = get_global_id(0);
    const int lid = get_local_id(0);
    const int tile_size = get_local_size(0);
    float4 my = pos[gid];
    float4 acc = (float4)(0.0f);
    for (int base = 0; base < n; base += tile_size) {
        tile[lid] = pos[base + lid];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = 0; j < tile_size; ++j) {
            float4 other = tile[j];
            float4 d = other - my;
            d.w = 0.0f;
            float dist2 = dot(d, d) + SOFTENING;
            float inv = rsqrt(dist2);
            float s = other.w * inv * inv * inv;
            acc += s * d;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    float4 v = vel[gid] + acc * dt;
    v.w = 0.0f;
    float4 p = my + v * dt;
    p.w = my.w;
    new_pos[gid] = p;
    new_vel[gid] = v;
}
