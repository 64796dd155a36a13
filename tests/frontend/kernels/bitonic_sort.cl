// One pass of a bitonic sorting network over global memory (AMD SDK style):
// the host launches it for every (stage, pass) pair.
__kernel void bitonic_sort(__global uint *data, const uint stage, const uint pass, const uint ascending)
{
    uint tid = get_global_id(0);
    uint pair_distance = 1u << (stage - pass);
    uint block_width = 2u * pair_distance;
    uint left = (tid % pair_distance) + (tid / pair_distance) * block_width;
    uint right = left + pair_distance;
    uint a = data[left], b = data[right];
    uint same_dir = (tid / (1u << stage)) % 2u == 1u ? 1u - ascending : ascending;
    uint greater = a > b ? a : b;
    uint lesser = a > b ? b : a;
    data[left] = same_dir ? lesser : greater;
    data[right] = same_dir ? greater : lesser;
}
