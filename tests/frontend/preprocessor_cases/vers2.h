#define FROM_VERS2 2
int in_vers2;
