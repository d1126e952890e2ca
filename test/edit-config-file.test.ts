import { describe, expect, it } from "vitest";
import { withUpstreamEntry } from "../src/config/edit-config-file.js";

/** What `gateway add` and `gateway remove` do to config.json's text: one entry, every other byte kept. */
describe("editing one upstreams entry in config.json", () => {
  it("adds an entry at the file's own indentation (tabs here), and removing it gives the file back byte for byte", () => {
    const before = '{\n\t"port": 1,\n\t"upstreams": {\n\t\t"a": {"url": "echo"}\n\t}\n}\n';
    const added = withUpstreamEntry(before, "b", { kind: "vllm", formats: ["chat"] });
    expect(added).toBe('{\n\t"port": 1,\n\t"upstreams": {\n\t\t"a": {"url": "echo"},\n\t\t"b": {\n\t\t\t"kind": "vllm",\n\t\t\t"formats": ["chat"]\n\t\t}\n\t}\n}\n');
    expect(withUpstreamEntry(added, "b", undefined)).toBe(before);
  });

  it("keeps Windows line ends, and creates upstreams where the file has none", () => {
    const before = '{\r\n  "port": 9000\r\n}\r\n';
    expect(withUpstreamEntry(before, "ollama", { kind: "ollama" })).toBe('{\r\n  "port": 9000,\r\n  "upstreams": {\r\n    "ollama": {\r\n      "kind": "ollama"\r\n    }\r\n  }\r\n}\r\n');
  });

  it("writes a new file laid out as a person would, and an upstreams object left empty as {}", () => {
    const created = withUpstreamEntry(undefined, "ollama", { kind: "ollama", models: ["qwen*", "llama*"] });
    expect(created).toBe('{\n  "upstreams": {\n    "ollama": {\n      "kind": "ollama",\n      "models": ["qwen*", "llama*"]\n    }\n  }\n}\n');
    expect(withUpstreamEntry(created, "ollama", undefined)).toBe('{\n  "upstreams": {}\n}\n');
    expect(withUpstreamEntry("{}", "x", { kind: "ollama" })).toBe('{\n  "upstreams": {\n    "x": {\n      "kind": "ollama"\n    }\n  }\n}\n');
  });

  it("replaces an entry in place (--force), leaving its neighbours' bytes alone", () => {
    const before = '{"upstreams": {"ollama": {"url": "http://127.0.0.1:1"}, "other": {"url": "echo"}}}';
    expect(withUpstreamEntry(before, "ollama", { kind: "ollama" })).toBe('{"upstreams": {"ollama": {\n  "kind": "ollama"\n}, "other": {"url": "echo"}}}');
  });
});
