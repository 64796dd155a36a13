// Ordinary text: pp-numbers, literals, punctuators, digraphs, odd characters.
int a = 0x1p-3f + 1.5e+10 + .5 + 1e3 + 0777 + 0xABCu + 12ULL;
char c = 'x', d = '\'', *s = "a\"b\\c", *w = L"wide";
a+++++b; a->b; a<<=1; a>>=2; a...b; x ## y; # not a directive
<: :> <% %> %: %:%:
#define CAT(a, b) a ## b
CAT(<, :) CAT(%:, %:)
@ ` $dollar \ unknown
