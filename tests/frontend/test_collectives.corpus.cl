
    #if defined(__opencl_c_work_group_collective_functions) && defined(__opencl_c_subgroups) && cl_khr_subgroups
    kernel void k(global int *o) { o[get_global_id(0)] = work_group_reduce_max((int)get_local_id(0)); }
    #endif