
int counter = 3;
kernel void set(global int *o) { counter = o[0]; }
kernel void get(global int *o) { o[0] = counter + 1; }
