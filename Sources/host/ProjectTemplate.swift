import Foundation
import LoomCore

/// The files `host init` writes: a project that passes `host check` and `host test` as created.
enum ProjectTemplate {
    /// A plugin name from a folder name: lower case letters, digits and `_` ("My App" → "my_app").
    static func pluginName(forFolder dir: String) -> String {
        let base = (((dir as NSString).standardizingPath as NSString).lastPathComponent).lowercased()
        var name = String(base.unicodeScalars.map { ("a"..."z").contains($0) || ("0"..."9").contains($0) ? Character($0) : "_" })
        while name.contains("__") { name = name.replacingOccurrences(of: "__", with: "_") }
        name = name.trimmingCharacters(in: CharacterSet(charactersIn: "_"))
        if name.isEmpty { return "app" }
        if name.first!.isNumber { name = "app_" + name }
        return name
    }

    /// Path in the project → contents.
    static func files(plugin name: String) -> [(path: String, text: String)] {
        let schema = { (kind: String, up: String) in up + ".loom/schema/\(kind).schema.json" }
        let plugin = "plugins/\(name)"
        return [
            ("loom.json", """
                {
                  "$schema": "\(schema("loom", ""))",
                  "name": "\(name)",
                  "plugins": ["plugins"],
                  "screens": "screens",
                  "users": "users.json",
                  "flows": "flows.json",
                  "scenarios": "scenarios",
                  "entry": "main"
                }

                """),
            ("users.json", """
                {
                  "$schema": "\(schema("users", ""))",
                  "member": {"id": "1", "tier": "member", "country": "NO"},
                  "guest": {"tier": "guest", "country": "SE"}
                }

                """),
            ("flows.json", """
                {
                  "$schema": "\(schema("flows", ""))",
                  "flows": {
                    "main": {
                      "presentation": "stack", "start": "home",
                      "steps": {"details": {"push": "details"}},
                      "links": {"app://details": "details"}
                    }
                  }
                }

                """),
            ("screens/home.json", """
                {
                  "$schema": "\(schema("screen", "../"))",
                  "screen": "home",
                  "root": {
                    "type": "container", "id": "root",
                    "children": [
                      {"type": "vstack", "id": "content", "constraints": ["edges == safe_area"],
                       "children": [
                        {"type": "greeting", "id": "hello", "meta": {"name": "world"}},
                        {"type": "label", "id": "members_only", "rule": "is_member",
                         "meta": {"text": "Thanks for being a member"}},
                        {"type": "button", "id": "more", "meta": {"title": "More"}, "action": "details",
                         "constraints": ["height >= 44"]}
                      ]}
                    ]
                  }
                }

                """),
            ("screens/details.json", """
                {
                  "$schema": "\(schema("screen", "../"))",
                  "screen": "details",
                  "root": {"type": "label", "id": "about", "meta": {"text": "Details"}}
                }

                """),
            ("scenarios/home.lua", """
                -- What each user sees on the home screen, and where "More" leads (`host test`).

                scenario("members see the members-only label", function(t)
                  local s = t:open("home", { user = "member" })
                  s:expect_visible("members_only")
                  s:expect_prop("hello", "text", "Hello, world")
                end)

                scenario("guests do not, and More opens the details", function(t)
                  local s = t:open("home", { user = "guest" })
                  s:expect_hidden("members_only")
                  expect_eq(s:actions(), { "details" })
                  s:tap("more")
                  s:expect_screen("details")
                end)

                """),
            ("\(plugin)/plugin.lua", """
                -- \(name): this project's own plugin. Edit it, then run `host check` and `host test`.
                -- The API: .loom/loom.d.lua (completion in editors with lua-language-server, see .luarc.json).

                ---@type loom.Plugin
                return {
                  name = "\(name)",
                  version = "0.1.0",
                  api = 1,
                  register = function(host)
                    host.rule("is_member", function(user)
                      return user.tier == "member"
                    end, { description = "the user's tier is member" })

                    host.single("greeting", function(node)
                      return { view = "Greeting", props = { text = "Hello, " .. (node.meta.name or "you") } }
                    end, { meta = { name = "string" }, description = "a greeting (Greeting): meta name" })
                  end,
                }

                """),
            ("\(plugin)/README.md", """
                # \(name)

                This project's own plugin.

                | registers | what |
                |---|---|
                | rule `is_member` | the user's `tier` is `"member"` |
                | component `greeting` (single) | view `Greeting`, prop `text` = `"Hello, " .. meta.name` |

                Its scenarios (`scenarios/`) run with `host test`, against the screens and users beside
                them, with this plugin loaded.

                """),
            ("\(plugin)/scenarios/\(name).lua", """
                -- \(name)'s own tests: the rule and the component, on the screens in this folder.

                scenario("is_member shows members-only components to members", function(t)
                  t:open("demo", { user = "member" }):expect_visible("members_only")
                  t:open("demo", { user = "guest" }):expect_hidden("members_only")
                end)

                scenario("greeting greets by name", function(t)
                  local s = t:open("demo", { user = "guest" })
                  s:expect_prop("hi", "text", "Hello, Ada")
                  s:expect_prop("anonymous", "text", "Hello, you")
                end)

                """),
            ("\(plugin)/scenarios/users.json", """
                {
                  "member": {"id": "1", "tier": "member"},
                  "guest": {"tier": "guest"}
                }

                """),
            ("\(plugin)/scenarios/screens/demo.json", """
                {
                  "screen": "demo",
                  "root": {
                    "type": "stack", "id": "root",
                    "children": [
                      {"type": "greeting", "id": "hi", "meta": {"name": "Ada"}},
                      {"type": "greeting", "id": "anonymous"},
                      {"type": "label", "id": "members_only", "rule": "is_member", "meta": {"text": "Members"}}
                    ]
                  }
                }

                """),
            (".luarc.json", """
                {
                  "runtime": {"version": "Lua 5.4", "builtin": {"io": "disable", "debug": "disable"}},
                  "workspace": {"library": [".loom"], "checkThirdParty": false},
                  "diagnostics": {
                    "globals": ["scenario", "expect", "expect_eq", "expect_ne", "expect_error", "inspect", "registered_rules", "load_file"]
                  }
                }

                """),
            (".loom/loom.d.lua", EmbeddedResources.files["lua/loom.d.lua"]!),
        ] + SchemaKind.initTemplate.map { (schema($0.rawValue, ""), $0.text) }
    }

    /// Writes the project into `dir` (created when missing); a folder that is not empty is
    /// refused unless `force` (then the template's files replace those of the same name).
    ///
    /// Every file goes through the safe writer fenced by `dir`: with `--force`, a template file
    /// whose place holds a link (to a file or a folder), a FIFO, a device or a folder, or whose
    /// folder is a link, is a located error, and every place is checked before anything is
    /// written, so a refused `init` leaves the folder as it was.
    static func create(in dir: String, force: Bool) -> Result<[String], Diagnostic> {
        if SafeFile.exists(dir) {
            // The folder the user named may be a link they made: it is followed, as named.
            guard SafeFile.isDirectory(dir) else { return .failure(.error("exists and is not a folder", at: SourceLocation(file: dir))) }
            let entries = SafeFile.contentsOfDirectory(dir) ?? []
            if !entries.isEmpty && !force {
                return .failure(.error("the folder is not empty (\(entries.count) entr\(entries.count == 1 ? "y" : "ies")): choose a new folder, or use --force to write the project into it (files of the same name are replaced)", at: SourceLocation(file: dir)))
            }
        }
        do { try SafeWriter.unfenced.createFolder(dir) } catch { return .failure(error) }
        let writer = SafeWriter(root: dir, confined: true, label: "the project folder")
        let files = files(plugin: pluginName(forFolder: dir)).map { (Project.join(dir, $0.0), $0.1) }
        // Look at every place first: nothing is written when one is refused.
        for (path, _) in files {
            do { try writer.check(path) } catch { return .failure(error) }
        }
        var written: [String] = []
        for (path, text) in files {
            do { try writer.write(text, to: path) } catch { return .failure(error) }
            written.append(path)
        }
        return .success(written)
    }
}
