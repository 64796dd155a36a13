
    __kernel void k(__global int *o) {
        bool b = 5;
        bool c = 0;
        size_t s = get_global_size(0);
        o[0] = b + c;
        o[1] = sizeof(size_t) * 10 + sizeof(bool);
        o[2] = (int)s;
    }