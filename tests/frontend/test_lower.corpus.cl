__constant char MSG[] = "hi";
__kernel void k(__global char *o) { char s[4] = "ab"; o[0] = s[1] + MSG[0]; }