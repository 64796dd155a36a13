
void fill(__local int *t) { t[get_local_id(0)] = 1; }
int helper(int x) { return x + 1; }
__kernel void a(__global int *o) {
    __local int mine[16];
    __local int other[8];
    fill(mine);
    o[0] = helper(other[0]);
}
__kernel void b(__global int *o) {
    __local int only_b[4];
    o[0] = only_b[1];
}
