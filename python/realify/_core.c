/* CPython binding of the C core. Text IR goes in; graphs come out as plain
 * Python values read from the core's own IR (the C parser is the one text-IR
 * reader). Every decision about how a complex op becomes real ops stays in
 * the core. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "ir/ir.h"
#include "realify.h"

static PyObject *LowerError;

static rf_graph *parse_or_raise(const char *text) {
    rf_graph *g = NULL;
    rf_error err = {0};
    rf_status s = rf_parse(text, &g, &err);
    if (s == RF_ERR_NOMEM) return (rf_graph *)PyErr_NoMemory();
    if (s != RF_OK) {
        PyErr_Format(PyExc_ValueError, "realify: cannot parse IR: %s", err.message);
        return NULL;
    }
    return g;
}

static PyObject *take_string(char *s) {
    if (!s) return PyErr_NoMemory();
    PyObject *r = PyUnicode_FromString(s);
    rf_string_free(s);
    return r;
}

/* ---- rf_graph -> Python. A decl is (name, dtype, packed_from|None, shape|None, planar, storage_read);
 * an attr is None, bool, int, float, complex, str, a list, ("value", name) or
 * ("dtype", name). */

static PyObject *dtype_or_none(rf_dtype dt) {
    if (dt == RF_DT_COUNT) Py_RETURN_NONE;
    return PyUnicode_FromString(rf_dtype_name(dt));
}

/* Sets item i of list l to x; on failure (x NULL) releases l and returns NULL. */
static PyObject *put(PyObject *l, size_t i, PyObject *x) {
    if (!x) {
        Py_DECREF(l);
        return NULL;
    }
    PyList_SET_ITEM(l, (Py_ssize_t)i, x);
    return l;
}

static PyObject *decl_to_py(const rf_value *v) {
    PyObject *shape = v->rank < 0 ? Py_NewRef(Py_None) : PyList_New(v->rank > 0 ? v->rank : 0);
    for (int i = 0; shape && i < v->rank; i++) {
        const rf_dim *d = &v->dims[i];
        shape = put(shape, (size_t)i, d->sym ? PyUnicode_FromString(d->sym) : PyLong_FromLongLong((long long)d->size));
    }
    if (!shape) return NULL;
    return Py_BuildValue("(ssNNOO)", v->name, rf_dtype_name(v->dtype), dtype_or_none(v->packed_from), shape,
                         v->planar ? Py_True : Py_False, v->storage_read ? Py_True : Py_False);
}

static PyObject *attr_to_py(const rf_attr *a) {
    switch (a->kind) {
    case RF_A_NONE: Py_RETURN_NONE;
    case RF_A_INT: return PyLong_FromLongLong((long long)a->i);
    case RF_A_BOOL: return PyBool_FromLong(a->i != 0);
    case RF_A_FLOAT: return PyFloat_FromDouble(a->f);
    case RF_A_COMPLEX: return PyComplex_FromDoubles(a->f, a->f_im);
    case RF_A_STR: return PyUnicode_FromString(a->s);
    case RF_A_DTYPE: return Py_BuildValue("(ss)", "dtype", rf_dtype_name(a->dtype));
    case RF_A_VALUE: return Py_BuildValue("(ss)", "value", a->value->name);
    case RF_A_LIST: {
        PyObject *l = PyList_New((Py_ssize_t)a->n);
        for (size_t i = 0; l && i < a->n; i++) l = put(l, i, attr_to_py(&a->items[i]));
        return l;
    }
    }
    PyErr_SetString(PyExc_SystemError, "realify: unknown attribute kind");
    return NULL;
}

static PyObject *node_to_py(const rf_node *n) {
    PyObject *outs = PyList_New((Py_ssize_t)n->nouts);
    for (size_t i = 0; outs && i < n->nouts; i++) outs = put(outs, i, decl_to_py(n->outs[i]));
    PyObject *args = outs ? PyList_New((Py_ssize_t)n->nargs) : NULL;
    for (size_t i = 0; args && i < n->nargs; i++)
        args = put(args, i, Py_BuildValue("(sN)", n->args[i].name, attr_to_py(&n->args[i].attr)));
    if (!args) {
        Py_XDECREF(outs);
        return NULL;
    }
    PyObject *origin = n->origin ? PyLong_FromSize_t(n->origin->index) : Py_NewRef(Py_None);
    return Py_BuildValue("(NsNN)", outs, n->op, args, origin);
}

static PyObject *const_to_py(const rf_value *c) {
    PyObject *data = c->const_data
                         ? PyBytes_FromStringAndSize((const char *)c->const_data, (Py_ssize_t)c->const_nbytes)
                         : Py_NewRef(Py_None);
    return Py_BuildValue("(NssN)", decl_to_py(c), c->const_kind, c->const_target, data);
}

/* {"inputs": [decl], "consts": [(decl, kind, target, bytes|None)],
 *  "nodes": [([decl], op, [(name, attr)], origin|None)], "outputs": [(attr, mark|None)]}
 * A node's origin is the index of the input-graph node it was lowered from. */
static PyObject *graph_to_py(const rf_graph *g) {
    PyObject *ins = PyList_New((Py_ssize_t)g->ninputs);
    for (size_t i = 0; ins && i < g->ninputs; i++) ins = put(ins, i, decl_to_py(g->inputs[i]));
    PyObject *consts = PyList_New((Py_ssize_t)g->nconsts);
    for (size_t i = 0; consts && i < g->nconsts; i++) consts = put(consts, i, const_to_py(g->consts[i]));
    PyObject *nodes = PyList_New((Py_ssize_t)g->nnodes);
    for (size_t i = 0; nodes && i < g->nnodes; i++) nodes = put(nodes, i, node_to_py(g->nodes[i]));
    PyObject *outs = PyList_New((Py_ssize_t)g->noutputs);
    for (size_t i = 0; outs && i < g->noutputs; i++) {
        const rf_attr *a = &g->outputs[i];
        outs = put(outs, i, Py_BuildValue("(NN)", attr_to_py(a), dtype_or_none(a->out_mark)));
    }
    if (!ins || !consts || !nodes || !outs) {
        Py_XDECREF(ins);
        Py_XDECREF(consts);
        Py_XDECREF(nodes);
        Py_XDECREF(outs);
        return NULL;
    }
    PyObject *report = PyList_New((Py_ssize_t)rf_graph_report_count(g)); /* a lowered graph's: patterns fired */
    for (size_t i = 0; report && i < rf_graph_report_count(g); i++)
        report = put(report, i, PyUnicode_FromString(rf_graph_report_line(g, i)));
    if (!report) {
        Py_DECREF(ins);
        Py_DECREF(consts);
        Py_DECREF(nodes);
        Py_DECREF(outs);
        return NULL;
    }
    return Py_BuildValue("{s:N,s:N,s:N,s:N,s:N}", "inputs", ins, "consts", consts, "nodes", nodes, "outputs", outs,
                         "report", report);
}

static PyObject *py_parse(PyObject *self, PyObject *arg) {
    (void)self;
    const char *text = PyUnicode_AsUTF8(arg);
    if (!text) return NULL;
    rf_graph *g = parse_or_raise(text);
    if (!g) return NULL;
    PyObject *r = graph_to_py(g);
    rf_graph_free(g);
    return r;
}

/* Clears the bits of the patterns named in `names` (an iterable of str); -1 with an exception set for a name the
 * core does not know. */
static int pattern_bits_off(PyObject *names, unsigned *patterns) {
    if (PyUnicode_Check(names)) { /* one name, not an iterable of its letters */
        unsigned bit = rf_pattern_bit(PyUnicode_AsUTF8(names));
        if (!bit) {
            if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "disable: %R is not a pattern's name", names);
            return -1;
        }
        *patterns &= ~bit;
        return 0;
    }
    PyObject *it = PyObject_GetIter(names);
    if (!it) return -1;
    PyObject *item;
    while ((item = PyIter_Next(it))) {
        const char *name = PyUnicode_Check(item) ? PyUnicode_AsUTF8(item) : NULL;
        unsigned bit = name ? rf_pattern_bit(name) : 0;
        if (!bit) {
            if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "disable: %R is not a pattern's name", item);
            Py_DECREF(item);
            Py_DECREF(it);
            return -1;
        }
        *patterns &= ~bit;
        Py_DECREF(item);
    }
    Py_DECREF(it);
    return PyErr_Occurred() ? -1 : 0;
}

/* The pattern table: (name, on by default, what it does), in the order the driver tries them. */
static PyObject *py_patterns(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    PyObject *l = PyList_New((Py_ssize_t)rf_pattern_count());
    for (size_t i = 0; l && i < rf_pattern_count(); i++) {
        const char *name = rf_pattern_name(i);
        PyObject *on = (rf_pattern_defaults() & rf_pattern_bit(name)) ? Py_True : Py_False;
        l = put(l, i, Py_BuildValue("(sOs)", name, on, rf_pattern_doc(name)));
    }
    return l;
}

/* On failure raises LowerError(status, status_name, op, node, message, node_index|None). */
static PyObject *py_lower(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    static char *kwlist[] = {"text", "truncate_double", "cleanup", "graph", "fft", "planar", "rotary_op",
                             "target", "pair_words", "disable", "division", NULL};
    const char *text;
    int truncate_double = 0, cleanup = 1, want_graph = 0, fft = RF_FFT_MATMUL, rotary_op = 0, pair_words = 0;
    int planar = 0, target = 0, division = RF_DIV_C10;
    PyObject *disable = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s|pppiipipOi", kwlist, &text, &truncate_double, &cleanup,
                                     &want_graph, &fft, &planar, &rotary_op, &target, &pair_words, &disable,
                                     &division))
        return NULL;
    unsigned patterns = rf_pattern_defaults();
    if (rotary_op) patterns |= rf_pattern_bit("rope.op"); /* the patterns the Python keywords have always named */
    if (pair_words) patterns |= rf_pattern_bit("rope.words");
    if (disable && pattern_bits_off(disable, &patterns) != 0) return NULL;
    if (planar < 0 || ((unsigned)planar & ~(unsigned)(RF_PLANAR_CONSTS | RF_PLANAR_INPUTS))) {
        PyErr_Format(PyExc_ValueError, "planar %d is not a set of RF_PLANAR_* bits (0 to %d)", planar,
                     (int)(RF_PLANAR_CONSTS | RF_PLANAR_INPUTS));
        return NULL;
    }
    if (target < 0 || ((unsigned)target & ~RF_TARGET_ALL) || (target & (target - 1))) {
        PyErr_Format(PyExc_ValueError, "target %d is not 0 (portable) or one RF_TARGET_* bit", target);
        return NULL;
    }
    if (fft < RF_FFT_MATMUL || fft > RF_FFT_ONNX_DFT) {
        PyErr_Format(PyExc_ValueError, "fft strategy %d is not one of the core's (0 to %d)", fft, RF_FFT_ONNX_DFT);
        return NULL;
    }
    if (!rf_division_name((rf_division)division)) {
        PyErr_Format(PyExc_ValueError, "division %d is not one of the core's algorithms", division);
        return NULL;
    }
    rf_graph *g = parse_or_raise(text);
    if (!g) return NULL;
    rf_lower_options opt;
    rf_lower_options_init(&opt);
    opt.truncate_double = truncate_double;
    opt.cleanup = cleanup;
    opt.fft = (rf_fft_strategy)fft;
    opt.planar = (unsigned)planar;
    opt.patterns = patterns;
    opt.target = (unsigned)target;
    opt.division = (rf_division)division;
    rf_graph *out = NULL;
    rf_error err = {0};
    rf_status s;
    Py_BEGIN_ALLOW_THREADS
    s = rf_lower(g, &opt, &out, &err);
    Py_END_ALLOW_THREADS
    if (s == RF_ERR_NOMEM) { /* the core freed what it had allocated */
        rf_graph_free(g);
        return PyErr_NoMemory();
    }
    if (s != RF_OK) {
        rf_graph_free(g);
        PyObject *pos = err.node_pos ? PyLong_FromSize_t(err.node_pos - 1) : Py_NewRef(Py_None);
        PyObject *info = Py_BuildValue("(issssN)", (int)s, rf_status_name(s), err.op, err.node, err.message, pos);
        if (info) {
            PyErr_SetObject(LowerError, info);
            Py_DECREF(info);
        }
        return NULL;
    }
    PyObject *r = take_string(rf_print(out));
    if (r && want_graph) { /* origins point into g: read them before g goes */
        PyObject *gr = graph_to_py(out);
        r = gr ? Py_BuildValue("(NN)", r, gr) : NULL;
    }
    rf_graph_free(out);
    rf_graph_free(g);
    return r;
}

static PyObject *index_list(const size_t *idx, size_t n) {
    PyObject *l = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; l && i < n; i++) PyList_SET_ITEM(l, (Py_ssize_t)i, PyLong_FromSize_t(idx[i]));
    return l;
}

/* Parses the IR text `arg` and analyzes it; NULL with an exception set (and nothing left to free) on failure. */
static rf_analysis *analyze_or_raise(PyObject *arg, rf_graph **g) {
    const char *text = PyUnicode_AsUTF8(arg);
    if (!text) return NULL;
    *g = parse_or_raise(text);
    if (!*g) return NULL;
    rf_analysis *a = rf_analyze(*g);
    if (!a) { /* out of memory: the core freed what it had */
        rf_graph_free(*g);
        PyErr_NoMemory();
    }
    return a;
}

/* The nodes lowering would rewrite: (op, first result's name, whether a rule exists), in graph order. */
static PyObject *py_complex_nodes(PyObject *self, PyObject *arg) {
    (void)self;
    rf_graph *g;
    rf_analysis *a = analyze_or_raise(arg, &g);
    if (!a) return NULL;
    const size_t *idx;
    size_t n = rf_analysis_complex_nodes(a, &idx);
    PyObject *l = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; l && i < n; i++) {
        const char *op = rf_graph_node_op(g, idx[i]);
        PyObject *has_rule = rf_rule_exists(op) ? Py_True : Py_False;
        l = put(l, i, Py_BuildValue("(ssO)", op, rf_graph_node_name(g, idx[i]), has_rule));
    }
    rf_analysis_free(a);
    rf_graph_free(g);
    return l;
}

static PyObject *py_analyze(PyObject *self, PyObject *arg) {
    (void)self;
    rf_graph *g;
    rf_analysis *a = analyze_or_raise(arg, &g);
    if (!a) return NULL;
    const size_t *idx;
    size_t n_in = rf_analysis_complex_inputs(a, &idx);
    PyObject *ins = index_list(idx, n_in);
    size_t n_const = rf_analysis_complex_consts(a, &idx);
    PyObject *consts = index_list(idx, n_const);
    size_t n_out = rf_analysis_complex_outputs(a, &idx);
    PyObject *outs = index_list(idx, n_out);
    char *report = rf_analysis_print(a);
    PyObject *r = Py_BuildValue("{s:n,s:n,s:N,s:N,s:N,s:s}", "complex_values",
                                (Py_ssize_t)rf_analysis_complex_value_count(a), "subgraphs",
                                (Py_ssize_t)rf_analysis_subgraph_count(a), "complex_inputs", ins, "complex_consts",
                                consts, "complex_outputs", outs, "report", report);
    rf_string_free(report);
    rf_analysis_free(a);
    rf_graph_free(g);
    return r;
}

static PyObject *py_roundtrip(PyObject *self, PyObject *arg) {
    (void)self;
    const char *text = PyUnicode_AsUTF8(arg);
    if (!text) return NULL;
    rf_graph *g = parse_or_raise(text);
    if (!g) return NULL;
    PyObject *r = take_string(rf_print(g));
    rf_graph_free(g);
    return r;
}

/* Test hook: the k-th allocation of the core from now on this thread fails; returns the countdown it replaced. */
static PyObject *py_test_fail_allocation(PyObject *self, PyObject *arg) {
    (void)self;
    long k = PyLong_AsLong(arg);
    if (k == -1 && PyErr_Occurred()) return NULL;
    return PyLong_FromLong(rf_test_fail_allocation(k));
}

static PyObject *py_rules(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    size_t n = rf_rule_count();
    PyObject *l = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; l && i < n; i++) PyList_SET_ITEM(l, (Py_ssize_t)i, PyUnicode_FromString(rf_rule_name(i)));
    return l;
}

static PyObject *py_opset(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    size_t n = rf_opset_count();
    PyObject *l = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; l && i < n; i++) {
        unsigned mask = 0;
        const char *op = rf_opset_entry_at(i, &mask);
        PyObject *item = Py_BuildValue("(sI)", op, mask);
        if (!item) {
            Py_DECREF(l);
            return NULL;
        }
        PyList_SET_ITEM(l, (Py_ssize_t)i, item);
    }
    return l;
}

static PyObject *py_op_targets(PyObject *self, PyObject *arg) {
    (void)self;
    const char *op = PyUnicode_AsUTF8(arg);
    if (!op) return NULL;
    unsigned mask = 0;
    if (!rf_opset_targets(op, &mask)) Py_RETURN_NONE;
    return PyLong_FromUnsignedLong(mask);
}

static PyObject *py_target_bit(PyObject *self, PyObject *arg) {
    (void)self;
    const char *name = PyUnicode_AsUTF8(arg);
    if (!name) return NULL;
    unsigned bit = rf_target_bit(name);
    if (!bit) return PyErr_Format(PyExc_ValueError, "unknown deployment target %R", arg);
    return PyLong_FromUnsignedLong(bit);
}

/* Adds name -> code to d for each name the core gives; 0 on failure. */
static int add_names(PyObject *d, const char *(*name_of)(int), int count) {
    for (int i = 0; i < count; i++) {
        PyObject *v = PyLong_FromLong(i);
        int bad = !v || PyDict_SetItemString(d, name_of(i), v) < 0;
        Py_XDECREF(v);
        if (bad) return 0;
    }
    return 1;
}

static const char *division_name(int i) { return rf_division_name((rf_division)i); }
static const char *fft_name(int i) { return rf_fft_strategy_name((rf_fft_strategy)i); }

/* {"target": {name: bit}, "fft": {name: code}, "division": {name: code}}: the spellings of the enumerated options,
 * from the core, in its order. */
static PyObject *py_option_names(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    PyObject *targets = PyDict_New(), *ffts = PyDict_New(), *divisions = PyDict_New();
    int ok = targets && ffts && divisions && add_names(ffts, fft_name, RF_FFT_ONNX_DFT + 1) &&
             add_names(divisions, division_name, RF_DIV_SCALED + 1);
    unsigned bit = 0;
    for (size_t i = 0; ok && rf_target_name_at(i, &bit); i++) {
        PyObject *v = PyLong_FromUnsignedLong(bit);
        ok = v && PyDict_SetItemString(targets, rf_target_name_at(i, NULL), v) == 0;
        Py_XDECREF(v);
    }
    if (!ok) {
        Py_XDECREF(targets);
        Py_XDECREF(ffts);
        Py_XDECREF(divisions);
        return NULL;
    }
    return Py_BuildValue("{s:N,s:N,s:N}", "target", targets, "fft", ffts, "division", divisions);
}

static PyMethodDef methods[] = {
    {"test_fail_allocation", py_test_fail_allocation, METH_O,
     "test_fail_allocation(k) -> the countdown replaced: the k-th core allocation from now fails (-1: none)"},
    {"lower", (PyCFunction)(void (*)(void))py_lower, METH_VARARGS | METH_KEYWORDS,
     "lower(text, truncate_double=False, cleanup=True, graph=False, fft=0, planar=0, rotary_op=False, "
     "target=0, pair_words=False, disable=[], division=0) -> lowered text IR, or (text, graph) (fft, division: "
     "codes of option_names(); planar: RF_PLANAR_* flags; target: an RF_TARGET_* bit; rotary_op, pair_words: turn "
     "the patterns rope.op, rope.words on; disable: names of patterns not to try; graph['report']: the patterns "
     "that fired)"},
    {"patterns", py_patterns, METH_NOARGS, "patterns() -> list[(name, on_by_default, doc)]: the multi-op patterns"},
    {"option_names", py_option_names, METH_NOARGS,
     "option_names() -> dict: {'target': {name: bit}, 'fft': {name: code}, 'division': {name: code}}"},
    {"parse", py_parse, METH_O, "parse(text) -> dict: the graph as Python values (origins None)"},
    {"complex_nodes", py_complex_nodes, METH_O,
     "complex_nodes(text) -> list[(op, name, has_rule)]: the nodes lowering rewrites"},
    {"analyze", py_analyze, METH_O, "analyze(text) -> dict: complex values, subgraphs, boundaries"},
    {"roundtrip", py_roundtrip, METH_O, "roundtrip(text) -> str: parse and print"},
    {"rules", py_rules, METH_NOARGS, "rules() -> list[str]: ops with a lowering rule"},
    {"opset", py_opset, METH_NOARGS, "opset() -> list[(op, mask)]: the real ops rules may emit, with target bits"},
    {"op_targets", py_op_targets, METH_O, "op_targets(op) -> int | None: target bits of op, None if undeclared"},
    {"target_bit", py_target_bit, METH_O, "target_bit(name) -> int: the op-set bit of a deployment target"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "realify._core", "realify C core", -1, methods,
                                    NULL, NULL, NULL, NULL};

/* rf_status by its C name; realify.errors.Status mirrors it. */
static PyObject *status_codes(void) {
#define STATUS(c) {#c, c}
    static const struct {
        const char *name;
        rf_status code;
    } codes[] = {STATUS(RF_OK),          STATUS(RF_ERR_PARSE), STATUS(RF_ERR_UNSUPPORTED),
                 STATUS(RF_ERR_INVALID), STATUS(RF_ERR_DTYPE), STATUS(RF_ERR_NOMEM),
                 STATUS(RF_ERR_TARGET)};
#undef STATUS
    PyObject *d = PyDict_New();
    for (size_t i = 0; d && i < sizeof codes / sizeof codes[0]; i++) {
        PyObject *v = PyLong_FromLong((long)codes[i].code);
        if (!v || PyDict_SetItemString(d, codes[i].name, v) < 0) Py_CLEAR(d);
        Py_XDECREF(v);
    }
    return d;
}

PyMODINIT_FUNC PyInit__core(void) {
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    LowerError = PyErr_NewException("realify._core.LowerError", NULL, NULL);
    if (!LowerError || PyModule_AddObject(m, "LowerError", LowerError) < 0) {
        Py_XDECREF(LowerError);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(LowerError);
    PyObject *codes = status_codes();
    if (!codes || PyModule_AddObject(m, "status_codes", codes) < 0) {
        Py_XDECREF(codes);
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddStringConstant(m, "version", REALIFY_VERSION);
    return m;
}
