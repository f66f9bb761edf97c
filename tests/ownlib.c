#include "ownlib.h"

#include <stdio.h>
#include <stdlib.h>

struct node {
  int value;
  node *kids[4];
  int nkids;
};

node *node_new(int value) {
  node *n = calloc(1, sizeof *n);
  if (n) n->value = value;
  return n;
}

void node_free(node *n) {
  for (int i = 0; i < n->nkids; i++)
    node_free(n->kids[i]);
  free(n);
}

int node_attach(node *parent, node *child) {
  if (parent->nkids == 4) return -1;
  parent->kids[parent->nkids++] = child;
  return 0;
}

int node_value(const node *n) {
  unsigned v = (unsigned)n->value; /* wraps: a sum over the tree */
  for (int i = 0; i < n->nkids; i++)
    v += (unsigned)node_value(n->kids[i]);
  return (int)v;
}

char *node_label(const node *n) {
  char *s = malloc(32);
  if (s) snprintf(s, 32, "node-%d", n->value);
  return s;
}

void node_label_free(char *s) {
  free(s);
}
