#include <stdio.h>
#include <stdlib.h>

#define MAX_ITEMS 16
#define SQUARE(x) ((x) * (x))

/* A point on the plane. */
struct point {
    int x;
    int y;
};

typedef struct {
    int count;
} counter_t;

enum color { RED, GREEN };

typedef int handle_t;

int distance(const struct point *a, const struct point *b);

/**
 * Squared distance between two points.
 */
int distance(const struct point *a, const struct point *b) {
    int dx = a->x - b->x;
    int dy = a->y - b->y;
    return SQUARE(dx) + SQUARE(dy);
}

#ifdef DEBUG
static void trace(const char *msg) {
    fprintf(stderr, "%s\n", msg);
}
#endif

static int *broken(int a {
    return NULL;
}

int main(void) {
    printf("%d\n", distance(NULL, NULL));
    return 0;
}
