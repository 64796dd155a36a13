// A function-like macro name not followed by ( is an ordinary identifier.
#define f(x) (x + 1)
#define g f
int f = 3;
int a = f;
int b = f (2);
int c = f
(3);
int d = g(4) + g;
int (*p)(int) = &f;
#define h() H
h h() h ( )
f /* comment */ (5)
