// #line changes __LINE__, __FILE__ and the lines of what follows.
int a = __LINE__;
#line 777
int b = __LINE__;
int c = __LINE__;
#line 10 "foo.cl"
int d = __LINE__; const char *e = __FILE__;
#define LINE_AGAIN 42
#line LINE_AGAIN
int f = __LINE__;
# 100 "bar.cl"
int g = __LINE__; const char *h = __FILE__;
#if __LINE__ == 101
int line_in_if;
#endif
