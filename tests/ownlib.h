/* ownlib: a small library with ownership transfer, for the triage tests:
 * node_attach gives the child to the parent (freed with it), node_label
 * returns a string the caller must free with node_label_free. */
#ifndef OWNLIB_H
#define OWNLIB_H

typedef struct node node;

node *node_new(int value);
void node_free(node *n);                    /* frees the node and its children */
int node_attach(node *parent, node *child); /* parent takes child; -1 if full */
int node_value(const node *n);
char *node_label(const node *n);
void node_label_free(char *s);

#endif
