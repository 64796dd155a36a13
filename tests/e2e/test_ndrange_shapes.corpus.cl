
__kernel void ids(__global uint *out, uint n) {
  size_t y = get_global_id(1) - get_global_offset(1), z = get_global_id(2) - get_global_offset(2);
  size_t i = z * get_global_size(1) + y;
  uint wrong = (get_num_groups(1) * get_local_size(1) != get_global_size(1))
             | (get_global_size(1) * get_global_size(2) != n) << 1
             | (get_group_id(1) != get_global_id(1) - get_global_offset(1)) << 2;
  out[i] = (uint)i | wrong << 29;
}
