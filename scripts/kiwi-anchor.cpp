// The solver bench's anchor: kiwi's own C++ (the headers of kiwisolver's PyPI source
// distribution, compiled by scripts/kiwi-anchor) solving the system loom-bench exports, timed
// the way loom-bench times LoomSolver (Sources/loom-bench/SolverBench.swift).
//
//   kiwi-anchor FILE    FILE: loom-bench's plain export (below); prints one JSON object
//                       {"kiwi": version, "ms": best time, "values": [...]}; exit 1 with a message
//                       on stderr when FILE cannot be read or is not such a system.
//
// FILE is whitespace-separated tokens (numbers as Swift writes a Double, which strtod reads back
// exactly):
//   loom-solver-system 1
//   variables N repeat R ops M
//   then M ops, each one of
//     edit V STRENGTH          addEditVariable(v[V], STRENGTH)
//     unedit V                 removeEditVariable(v[V])
//     add REL STRENGTH CONSTANT K V1 C1 … VK CK
//                              Σ Ci·v[Vi] + CONSTANT  REL  0, REL one of == <= >=
//
// As in loom-bench (and scripts/solver-compare --bench for kiwisolver's Python), the constraints
// are built before the clock starts; each of R repetitions times a fresh solver replaying the ops
// and updateVariables(), and the best is printed. The values are the last repetition's.
#include <kiwi/kiwi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {

struct Op {
    enum Kind { Edit, Unedit, Add } kind;
    int var = 0;
    double strength = 0;
    kiwi::Constraint constraint;
};

[[noreturn]] void fail(const std::string& file, const std::string& what) {
    std::fprintf(stderr, "kiwi-anchor: %s: %s\n", file.c_str(), what.c_str());
    std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: kiwi-anchor FILE (a system loom-bench exports for it)\n");
        return 2;
    }
    const std::string file = argv[1];
    std::ifstream in(file);
    if (!in) fail(file, "cannot be read");
    std::string word;
    int format = 0;
    if (!(in >> word >> format) || word != "loom-solver-system" || format != 1)
        fail(file, "not a loom-solver-system 1 file");
    long variables = 0, repeat = 0, count = 0;
    std::string w1, w2, w3;
    if (!(in >> w1 >> variables >> w2 >> repeat >> w3 >> count) || w1 != "variables" || w2 != "repeat" || w3 != "ops")
        fail(file, "expected 'variables N repeat R ops M'");
    // Bounds that keep a bad file from asking for unbounded memory or time.
    if (variables < 0 || variables > 10000000 || repeat < 1 || repeat > 1000 || count < 0 || count > 100000000)
        fail(file, "counts out of range");
    std::vector<kiwi::Variable> vars;
    vars.reserve(variables);
    for (long i = 0; i < variables; ++i) vars.emplace_back("v" + std::to_string(i));
    auto var = [&](long v) -> kiwi::Variable& {
        if (v < 0 || v >= variables) fail(file, "variable " + std::to_string(v) + " out of range");
        return vars[v];
    };
    std::vector<Op> ops;
    ops.reserve(count);
    for (long k = 0; k < count; ++k) {
        std::string kind;
        if (!(in >> kind)) fail(file, "op " + std::to_string(k) + " missing");
        Op op{Op::Edit};
        if (kind == "edit") {
            long v;
            if (!(in >> v >> op.strength)) fail(file, "bad edit op " + std::to_string(k));
            var(v);
            op.var = static_cast<int>(v);
        } else if (kind == "unedit") {
            long v;
            if (!(in >> v)) fail(file, "bad unedit op " + std::to_string(k));
            var(v);
            op.kind = Op::Unedit;
            op.var = static_cast<int>(v);
        } else if (kind == "add") {
            std::string rel;
            double constant;
            long terms;
            if (!(in >> rel >> op.strength >> constant >> terms) || terms < 0 || terms > 1000000)
                fail(file, "bad add op " + std::to_string(k));
            std::vector<kiwi::Term> ts;
            ts.reserve(terms);
            for (long t = 0; t < terms; ++t) {
                long v;
                double c;
                if (!(in >> v >> c)) fail(file, "bad term in op " + std::to_string(k));
                ts.emplace_back(var(v), c);
            }
            kiwi::RelationalOperator r;
            if (rel == "==") r = kiwi::OP_EQ;
            else if (rel == "<=") r = kiwi::OP_LE;
            else if (rel == ">=") r = kiwi::OP_GE;
            else fail(file, "bad relation '" + rel + "' in op " + std::to_string(k));
            op.kind = Op::Add;
            op.constraint = kiwi::Constraint(kiwi::Expression(std::move(ts), constant), r, op.strength);
        } else {
            fail(file, "unknown op '" + kind + "'");
        }
        ops.push_back(std::move(op));
    }
    double best = -1;
    // kiwi throws on a rejected constraint (UnsatisfiableConstraint, DuplicateConstraint…): the
    // bench's systems have none, so one is a bad file, reported rather than left uncaught.
    try {
        for (long rep = 0; rep < repeat; ++rep) {
            auto t0 = std::chrono::steady_clock::now();
            {
                kiwi::Solver solver;
                for (auto& op : ops) {
                    switch (op.kind) {
                    case Op::Edit: solver.addEditVariable(vars[op.var], op.strength); break;
                    case Op::Unedit: solver.removeEditVariable(vars[op.var]); break;
                    case Op::Add: solver.addConstraint(op.constraint); break;
                    }
                }
                solver.updateVariables();
                auto t1 = std::chrono::steady_clock::now();
                double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
                if (best < 0 || ms < best) best = ms;
                // The solver is destroyed after the clock stops (loom-bench's is too).
            }
        }
    } catch (const std::exception& e) {
        fail(file, std::string("kiwi rejected the system: ") + e.what());
    }
    std::printf("{\"kiwi\": \"%s\", \"ms\": %.6f, \"values\": [", KIWI_VERSION, best);
    for (long i = 0; i < variables; ++i) std::printf(i ? ",%.17g" : "%.17g", vars[i].value());
    std::printf("]}\n");
    return 0;
}
