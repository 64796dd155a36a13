// The ## operator: with empty arguments (placemarkers), chains, pasting
// that forms punctuators and literals, and ## from an argument (no operator).
#define cat(a, b) a ## b
#define xcat(a, b) cat(a, b)
cat(,) cat(a,) cat(,b) cat(x, y) cat(1, 2) cat(1,.5e+3) cat(L, 'a') cat(L, "s")
cat(-, >) cat(<, <=) cat(+, +) cat(&, &) cat(#, #)
cat(x, __LINE__) xcat(x, __LINE__)
#define cat3(a, b, c) a ## b ## c
cat3(1, 2, 3) cat3(, , c) cat3(a, , ) cat3(, , )
#define hash_hash # ## #
#define mkstr(a) # a
#define in_between(a) mkstr(a)
#define join(c, d) in_between(c hash_hash d)
char p[] = join(x, y);
#define ARG_HASHES(x) x
ARG_HASHES(a ## b)
#define OBJ a ## b
OBJ
#define ID_PASTE(n) var_ ## n ## _end
int ID_PASTE(1), ID_PASTE(two), ID_PASTE();
#define DOUBLE_PASTE(a) a ## a
DOUBLE_PASTE(z) DOUBLE_PASTE()
