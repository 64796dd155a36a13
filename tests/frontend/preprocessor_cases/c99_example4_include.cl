// C99 6.10.3.5 EXAMPLE 4: #include with a macro-expanded header name.
#define str(s) # s
#define xstr(s) str(s)
#define INCFILE(n) vers ## n
#include xstr(INCFILE(2).h)
int after_include = FROM_VERS2;
