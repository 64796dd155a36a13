// Particle update with structure-of-arrays storage and a parameter struct passed
// by value: gravity, drag and a bounce off the floor.
typedef struct {
    float dt;
    float gravity;
    float drag;
    float floor_y;
    float restitution;
} sim_params_t;

typedef struct {
    __global float *x;
    __global float *y;
} unused_view_t;

inline void bounce(float *py, float *vy, const sim_params_t p)
{
    if (*py < p.floor_y) {
        *py = p.floor_y + (p.floor_y - *py);
        *vy = -*vy * p.restitution;
    }
}

__kernel void update_particles(__global float *px, __global float *py, __global float *vx, __global float *vy,
                               const sim_params_t params, const int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    float x = px[i], y = py[i], u = vx[i], v = vy[i];
    float damp = 1.0f - params.drag * params.dt;
    u *= damp;
    v = (v - params.gravity * params.dt) * damp;
    x += u * params.dt;
    y += v * params.dt;
    bounce(&y, &v, params);
    px[i] = x; py[i] = y; vx[i] = u; vy[i] = v;
}
