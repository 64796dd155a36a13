
kernel void k(global int *out, global const int *in) {
  size_t i = get_global_id(0);
  int x = in[i], n = 0, acc = 1;
  if (x & 1) goto second;
first:
  acc = acc * 3 + n;
  n++;
  if (n > 20) goto done;
second:
  acc = acc + (x >> n % 5);
  n += 2;
  if (n < x % 17) goto first;
  if (acc % 3 == 0 && n < 40) goto second;
done:
  out[i] = acc * 100 + n;
}
