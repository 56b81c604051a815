import Foundation
import LoomCore
import LoomPlugins
import LoomTesting

/// What `scenarioBench` measured: `host test`'s runner over generated scenarios, with one
/// worker and with two (best of two runs each, interleaved).
struct ScenarioBenchResult {
    var files: Int
    var scenarios: Int
    var jobs1Ms: Double
    var jobs2Ms: Double
    var perScenarioUsJobs1: Double { jobs1Ms * 1000 / Double(max(1, scenarios)) }
    var perScenarioUsJobs2: Double { jobs2Ms * 1000 / Double(max(1, scenarios)) }
    /// jobs 1 / jobs 2: 2.0 is perfect scaling on two cores.
    var scaling: Double { jobs1Ms / jobs2Ms }
}

/// The generated project: a home screen with a gated premium block, an upsell banner and a
/// list of products (one gated by app version), a product detail screen with a gated button,
/// an upgrade screen, a stack flow, four profiles and a small Lua plugin (two rules, an item
/// view).
private func writeScenarioProject(at dir: String) {
    let fm = FileManager.default
    for sub in ["screens", "plugins/sbench", "scenarios"] {
        try! fm.createDirectory(atPath: dir + "/" + sub, withIntermediateDirectories: true)
    }
    func write(_ text: String, _ path: String) {
        try! text.write(toFile: dir + "/" + path, atomically: true, encoding: .utf8)
    }
    write("""
    {"name": "sbench", "plugins": ["plugins"], "screens": "screens", "users": "users.json",
     "flows": "flows.json", "scenarios": "scenarios", "entry": "main"}
    """, "loom.json")
    write("""
    {
      "gold": {"id": "174", "tier": "gold", "country": "NO", "app_version": "5.3.0", "churn_score": 0.1},
      "free": {"id": "499", "tier": "free", "country": "SE", "app_version": "5.1.0", "churn_score": 0.2},
      "gold_at_risk": {"id": "388", "tier": "gold", "country": "DK", "app_version": "5.3.0", "churn_score": 0.9},
      "guest": {"tier": "guest", "country": "NO", "app_version": "5.3.0"}
    }
    """, "users.json")
    write("""
    {"flows": {"main": {"presentation": "stack", "start": "home", "steps": {
      "item": {"push": "detail"},
      "upgrade": {"present": "upgrade"},
      "buy": {"none": true},
      "trailer": {"none": true},
      "lounge": {"none": true},
      "close": {"finish": true}
    }}}}
    """, "flows.json")
    write("""
    return {
      name = "sbench", version = "1.0.0", api = 1,
      register = function(host)
        host.rule("is_gold_member", function(user) return user.tier == "gold" end)
        host.rule("is_churn_risk", function(user)
          return type(user.churn_score) == "number" and user.churn_score >= 0.8
        end)
        host.item("product", function(item)
          return { view = "ProductCell", props = { title = item.title, price = item.subtitle } }
        end)
      end,
    }
    """, "plugins/sbench/plugin.lua")
    var items: [String] = []
    for k in 0..<10 {
        let rule = k == 9 ? #", "rule": {"at_least": {"app_version": "5.2.0"}}"# : ""
        items.append(#"{"title": "Item \#(k)", "subtitle": "\#(k + 1)9 kr", "kind": "product", "action": "item:\#(k)"\#(rule)}"#)
    }
    write("""
    {"screen": "home", "root": {"type": "stack", "id": "home_root", "meta": {"spacing": 12}, "children": [
      {"type": "label", "id": "greeting", "meta": {"text": "Welcome"}},
      {"type": "stack", "id": "premium", "rule": {"AND": ["is_gold_member", {"NOT": "is_churn_risk"}]},
       "meta": {"background_color": "0xFFD700"}, "children": [
        {"type": "label", "id": "premium_greeting", "meta": {"text": "Thanks for being Gold"}},
        {"type": "button", "id": "premium_lounge", "meta": {"title": "Lounge"}, "action": "lounge"}
      ]},
      {"type": "button", "id": "upsell", "rule": {"NOT": "is_gold_member"}, "meta": {"title": "Go Gold"}, "action": "upgrade"},
      {"type": "list", "id": "products", "meta": {"title": "Products"}, "layout": {"span": 2, "item-spacing": 8},
       "items": [\(items.joined(separator: ",\n         "))]}
    ]}}
    """, "screens/home.json")
    write("""
    {"screen": "detail", "root": {"type": "stack", "id": "detail_root", "meta": {"title": "Product"}, "children": [
      {"type": "image", "id": "photo", "meta": {"url": "https://img.example/p.jpg"}},
      {"type": "label", "id": "description", "meta": {"text": "A product"}},
      {"type": "button", "id": "buy_4k", "rule": "is_gold_member", "meta": {"title": "Buy the 4K edition"}, "action": "buy"},
      {"type": "button", "id": "trailer", "meta": {"title": "Trailer"}, "action": "trailer"}
    ]}}
    """, "screens/detail.json")
    write("""
    {"screen": "upgrade", "root": {"type": "stack", "id": "upgrade_root", "children": [
      {"type": "label", "id": "pitch", "meta": {"text": "Go Gold"}},
      {"type": "button", "id": "close", "meta": {"title": "Close"}, "action": "close"}
    ]}}
    """, "screens/upgrade.json")
}

/// One generated scenario: opens home for a profile, checks what that profile sees, taps a
/// product (or the upsell) and checks the screen it lands on. No snapshots: the figure is the
/// runner, the sandbox, resolution and navigation, not file comparison.
private func scenarioText(_ i: Int) -> String {
    let users = ["gold", "free", "gold_at_risk", "guest"]
    let user = users[i % users.count]
    let gold = user == "gold" || user == "gold_at_risk"
    let premium = user == "gold"
    let k = (i / users.count) % 9  // items 0…8 are visible to everyone
    var body = "  local s = t:open(\"home\", { user = \"\(user)\" })\n"
    body += "  s:expect_visible(\"greeting\")\n"
    body += "  s:expect_\(premium ? "visible" : "hidden")(\"premium\")\n"
    body += "  s:expect_\(premium ? "visible" : "hidden")(\"premium_greeting\")\n"
    body += "  s:expect_\(gold ? "hidden" : "visible")(\"upsell\")\n"
    body += "  s:expect_\(user == "free" ? "hidden" : "visible")(\"Item 9\")\n"
    body += "  s:expect_visible(\"Item \(k)\")\n"
    if !gold && i % 10 == 7 {
        body += "  s:tap(\"upsell\")\n"
        body += "  s:expect_screen(\"upgrade\")\n"
        body += "  s:expect_visible(\"pitch\")\n"
    } else {
        body += "  s:tap(\"item:\(k)\")\n"
        body += "  s:expect_screen(\"detail\")\n"
        body += "  s:expect_\(gold ? "visible" : "hidden")(\"buy_4k\")\n"
        body += "  s:expect_visible(\"trailer\")\n"
        if i % 5 == 0 {
            body += "  s:back()\n"
            body += "  s:expect_stack({ \"home\" })\n"
        }
    }
    return "scenario(\"s\(i) \(user) item \(k)\", function(t)\n\(body)end)\n"
}

/// Generates a project and `count` scenarios in files of `perFile`, runs them with
/// `ScenarioRunner.run` at `--jobs 1` and `--jobs 2` (interleaved, best of two each), and
/// removes the folder. Aborts when any scenario does not pass.
func scenarioBench(count: Int, perFile: Int = 20) -> ScenarioBenchResult {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("loom-sbench-\(getpid())").path
    try? FileManager.default.removeItem(atPath: dir)
    defer { try? FileManager.default.removeItem(atPath: dir) }
    writeScenarioProject(at: dir)
    var files = 0
    var i = 0
    while i < count {
        let n = min(perFile, count - i)
        var text = "-- generated by loom-bench\n"
        for j in i..<(i + n) { text += scenarioText(j) }
        try! text.write(toFile: dir + String(format: "/scenarios/f%03d.lua", files), atomically: true, encoding: .utf8)
        files += 1
        i += n
    }

    func run(jobs: Int) -> Double {
        var options = ScenarioOptions()
        options.project = dir
        options.jobs = jobs
        options.ci = true  // nothing is ever written
        let t0 = now()
        let report = ScenarioRunner.run(options)
        let ms = Double(now() - t0) / 1e6
        guard report.succeeded, report.passed == count, report.files.count == files else {
            let failures = report.results.filter { $0.status != .passed }.prefix(5)
                .map { "  \($0.name): \($0.message ?? $0.status.rawValue)" }
            let errors = report.errors.prefix(5).map { "  \($0)" }
            FileHandle.standardError.write(Data((
                ["loom-bench scenarios: expected \(count) passing scenarios in \(files) files, got \(report.summary) in \(report.files.count) files (jobs \(jobs))"]
                + errors + failures).joined(separator: "\n").utf8 + [10]))
            // exit skips the defers: remove this folder and main's.
            try? FileManager.default.removeItem(atPath: dir)
            try? FileManager.default.removeItem(atPath: tmp)
            exit(1)
        }
        return ms
    }

    var j1 = Double.infinity, j2 = Double.infinity
    for _ in 0..<2 {
        j1 = min(j1, run(jobs: 1))
        j2 = min(j2, run(jobs: 2))
    }
    return ScenarioBenchResult(files: files, scenarios: count, jobs1Ms: j1, jobs2Ms: j2)
}
