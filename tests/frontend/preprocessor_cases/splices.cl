// Line splices (backslash-newline) inside tokens, comments and directives;
// a splice with spaces after the backslash is one too (clang).
#def\
ine SPL\
ICED 1\
+ 2
int in\
teger = SPLICED;
const char *s = "a\
b";
// a comment \
continued on the next line
int after_comment;
/* block *\
/ int after_block;
#define WITH_SPACES 3 \   
  + 4
int w = WITH_SPACES;
int x = __LI\
NE__;
