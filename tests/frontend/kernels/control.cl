int classify(int v)
{
    int r = 0;
    switch (v & 3) {
    case 0:
        r = 10;
        break;
    case 1:
    case 2: {
        r = 20;
        break;
    }
    default:
        r = -1;
    }
    do {
        r++;
        if (r > 100) goto out;
    } while (r % 7);
    while (1) {
        if (--r < 0) break;
        else continue;
    }
out:
    return r;
}

__kernel void run(__global int *data)
{
    size_t i = get_global_id(0);
    data[i] = classify(data[i]);
}
