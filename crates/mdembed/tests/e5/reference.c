/* Reference vectors for mdembed's e5 port: reads lines "query|passage<TAB>text"
 * (text with \n and \\ escapes), writes "kind<TAB>ids<TAB>384 floats". */
#include "e5.c"
static void unescape(char *s) {
    char *o = s;
    for (char *p = s; *p; p++) {
        if (*p == '\\' && p[1] == 'n') { *o++ = '\n'; p++; }
        else if (*p == '\\' && p[1] == '\\') { *o++ = '\\'; p++; }
        else *o++ = *p;
    }
    *o = 0;
}
int main(int argc, char **argv) {
    e5_model *m = e5_load(argv[1]);
    if (!m) return 1;
    FILE *f = fopen(argv[2], "r");
    static char line[1 << 20];
    while (fgets(line, sizeof line, f)) {
        size_t n = strlen(line);
        if (n && line[n - 1] == '\n') line[--n] = 0;
        if (!n || line[0] == '#') continue;
        char *tab = strchr(line, '\t');
        *tab = 0;
        int is_q = strcmp(line, "query") == 0;
        char *text = tab + 1; unescape(text);
        const char *pfx = is_q ? "query: " : "passage: ";
        char *buf = malloc(strlen(pfx) + strlen(text) + 1);
        strcpy(buf, pfx); strcat(buf, text);
        int cap = strlen(buf) + 4; int *ids = malloc(sizeof(int) * cap);
        int nt = tok_content(&m->tok, buf, ids, cap);
        float out[384];
        e5_embed(m, text, is_q, out);
        printf("%s\t", line);
        for (int i = 0; i < nt; i++) printf(i ? ",%d" : "%d", ids[i]);
        printf("\t");
        for (int i = 0; i < 384; i++) printf(i ? " %.8g" : "%.8g", out[i]);
        printf("\n");
        free(buf); free(ids);
    }
    return 0;
}
