// #include with the header name from a macro, in both forms.
#define HEADER "vers2.h"
#include HEADER
#define ANGLED <vers2.h>
#define STR(x) #x
#define XSTR(x) STR(x)
#include XSTR(vers2.h)
int after = FROM_VERS2 + __INCLUDE_LEVEL__;
