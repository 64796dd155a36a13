typedef struct Particle {
    float4 pos;
    float4 vel;
    struct Particle *next;
    unsigned flags : 4;
    unsigned alive : 1;
} Particle;

struct __attribute__((packed)) Header { char tag; int size; };
union Bits { float f; uint u; };
enum Kind { KIND_A, KIND_B = 10, KIND_C };
typedef enum Kind Kind;

__kernel void step(__global Particle *ps, float dt, __global struct Header *hdr)
{
    __global Particle *p = &ps[get_global_id(0)];
    union Bits b;
    b.f = dt;
    p->pos.xyz += p->vel.xyz * dt;
    p->flags = (b.u >> 23) & 0xF;
    Particle copy = *p;
    copy.vel = -copy.vel;
    hdr->size = sizeof(Particle) + sizeof(struct Header) + KIND_C;
}
