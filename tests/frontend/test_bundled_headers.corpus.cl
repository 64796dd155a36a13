#include <pyopencl-random123/threefry.cl>
    uint4 next_block(threefry4x32_key_t *key, threefry4x32_ctr_t *ctr) {
      union { threefry4x32_ctr_t as_ctr; uint4 as_vec; } out;
      out.as_ctr = threefry4x32(*ctr, *key);
      if (++ctr->v[0] == 0) ++ctr->v[1];
      return out.as_vec;
    }
    __kernel void fill(global uint *o) {
      threefry4x32_key_t k = {{get_global_id(0), 0, 0, 0}};
      threefry4x32_ctr_t c = {{0xffffffff, 0, 0, 0}};
      vstore4(next_block(&k, &c), 0, o);
      vstore4(next_block(&k, &c), 1, o);
    }