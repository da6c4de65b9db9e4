/* CPython binding of the C core. It passes text IR in and out, nothing else:
 * every decision about how a complex op becomes real ops stays in the core. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "realify.h"

static PyObject *LowerError;

static rf_graph *parse_or_raise(const char *text) {
    rf_graph *g = NULL;
    rf_error err = {0};
    if (rf_parse(text, &g, &err) != RF_OK) {
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

static PyObject *py_lower(PyObject *self, PyObject *args, PyObject *kwargs) {
    (void)self;
    static char *kwlist[] = {"text", "truncate_double", "cleanup", NULL};
    const char *text;
    int truncate_double = 0, cleanup = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s|pp", kwlist, &text, &truncate_double, &cleanup)) return NULL;
    rf_graph *g = parse_or_raise(text);
    if (!g) return NULL;
    rf_lower_options opt;
    rf_lower_options_init(&opt);
    opt.truncate_double = truncate_double;
    opt.cleanup = cleanup;
    rf_graph *out = NULL;
    rf_error err = {0};
    rf_status s;
    Py_BEGIN_ALLOW_THREADS
    s = rf_lower(g, &opt, &out, &err);
    Py_END_ALLOW_THREADS
    rf_graph_free(g);
    if (s != RF_OK) {
        PyObject *info = Py_BuildValue("(ssss)", rf_status_name(err.code), err.op, err.node, err.message);
        if (info) {
            PyErr_SetObject(LowerError, info);
            Py_DECREF(info);
        }
        return NULL;
    }
    PyObject *r = take_string(rf_print(out));
    rf_graph_free(out);
    return r;
}

static PyObject *index_list(const size_t *idx, size_t n) {
    PyObject *l = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; l && i < n; i++) PyList_SET_ITEM(l, (Py_ssize_t)i, PyLong_FromSize_t(idx[i]));
    return l;
}

static PyObject *py_analyze(PyObject *self, PyObject *arg) {
    (void)self;
    const char *text = PyUnicode_AsUTF8(arg);
    if (!text) return NULL;
    rf_graph *g = parse_or_raise(text);
    if (!g) return NULL;
    rf_analysis *a = rf_analyze(g);
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

static PyMethodDef methods[] = {
    {"lower", (PyCFunction)(void (*)(void))py_lower, METH_VARARGS | METH_KEYWORDS,
     "lower(text, truncate_double=False, cleanup=True) -> str: lowered text IR"},
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
    PyModule_AddStringConstant(m, "version", REALIFY_VERSION);
    return m;
}
