import LoomCore
import XCTest

/// What `host watch` and `host test --watch` treat as an input of the project: clients.json and
/// journeys.json too (a change to either changes what users receive or what host test checks);
/// a file beside them that is not one is not.
final class ProjectInputsTests: XCTestCase {
    func testClientsAndJourneysFilesAreInputs() {
        let root = "/tmp/loom-inputs-\(getpid())"
        let inputs = ProjectInputs(project: Project(root: root, fileLimits: .standard))
        for f in ["clients.json", "journeys.json", "flows.json", "users.json", "loom.json", "screens/home.json", "data/x.json"] {
            XCTAssertTrue(inputs.contains(root + "/" + f), f)
        }
        for f in ["journeys.json.bak", "notes.txt", "clients.jsonl", "report.xml"] {
            XCTAssertFalse(inputs.contains(root + "/" + f), f)
        }
    }
}
