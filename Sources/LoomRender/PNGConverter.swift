// SVG → PNG through librsvg's `rsvg-convert` (docs/render.md, "PNG").
import Foundation
import LoomCore

public enum PNGConverter {
    /// The message when `rsvg-convert` is not on PATH.
    public static let missingMessage =
        "host render --format png needs rsvg-convert (Debian package librsvg2-bin: apt-get install -y librsvg2-bin)"

    /// `rsvg-convert`'s limits: one minute (or what remains of a `host serve` request's time),
    /// 256 MiB of PNG, 1 MiB of messages (docs/render.md, "PNG").
    public static let limits = Subprocess.Limits(timeout: 60, maxOutputBytes: 256 << 20, maxErrorBytes: 1 << 20)

    /// `rsvg-convert` on PATH (the first executable one), else nil.
    public static func locate(path: String? = Subprocess.environmentPath) -> String? {
        Subprocess.locate("rsvg-convert", path: path)
    }

    /// The PNG of `picture`, exactly `pixelWidth` × `pixelHeight` (`rsvg-convert -w W -h H`),
    /// through `Subprocess` (time limit, output caps, stdout and stderr read as they come).
    public static func png(_ picture: SVGPicture, path: String? = Subprocess.environmentPath,
                           limits: Subprocess.Limits = PNGConverter.limits) -> Result<Data, Diagnostic> {
        let args = ["--format", "png", "--width", String(picture.pixelWidth), "--height", String(picture.pixelHeight)]
        let out: Subprocess.Output
        switch Subprocess.run("rsvg-convert", arguments: args, input: Array(picture.text.utf8), limits: limits,
                                   path: path, missing: missingMessage) {
        case .success(let o): out = o
        case .failure(let d): return .failure(d)
        }
        guard out.stdout.count >= 24, out.stdout.starts(with: [0x89, 0x50, 0x4E, 0x47]) else {
            return .failure(.error("`rsvg-convert` did not write a PNG"))
        }
        return .success(Data(out.stdout))
    }
}
