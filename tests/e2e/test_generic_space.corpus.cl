
int classify(int *p) {
    return (to_global(p) != NULL) + (to_local(p) != NULL) * 2 + (to_private(p) != NULL) * 4
           + get_fence(p) * 10;
}
kernel void k(global int *g, local int *l, global int *out) {
    int priv = 3;
    local int lv[4];
    int i = get_global_id(0);
    l[get_local_id(0)] = i;
    lv[get_local_id(0)] = i;
    barrier(CLK_LOCAL_MEM_FENCE);
    int *ps[4] = { g + i, l + get_local_id(0), &priv, lv + get_local_id(0) };
    for (int j = 0; j < 4; j++)
        out[i * 4 + j] = classify(ps[j]);
    global int *back = to_global(ps[0]);
    back[0] = *to_private(ps[2]) + *to_local(ps[1]);
}
