kernel void k(global int *o, local int *l) {
        l[get_local_id(0)] = o[0];
        work_group_barrier(CLK_LOCAL_MEM_FENCE, memory_scope_work_group);
        atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_seq_cst, memory_scope_device);
        work_group_barrier(CLK_GLOBAL_MEM_FENCE);
        o[1] = l[0];
    }