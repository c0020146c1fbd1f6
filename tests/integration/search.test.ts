import { describe, expect, it } from "vitest";
import { GET as searchRoute } from "@/app/api/v1/search/route";
import {
  searchTerms,
  snippetMarkup,
  HIT_END,
  HIT_START,
  fts5Match,
  likeContaining,
  splitTerms,
  substringSnippet,
} from "@/lib/search/query";
import { group, update } from "../fixtures/telegram";
import { databases } from "../helpers/db";
import { useRoutedApp } from "../helpers/route-app";

const TOKEN = "search-token-0123456789abcdef";
type Result = { messageId: number; conversationId: number; snippet: string; sentAt: string; deletedAt: string | null };

describe("search terms and snippets", () => {
  it("keeps words only, so no query syntax reaches the database", () => {
    expect(searchTerms('"')).toEqual([]);
    expect(searchTerms("AND(")).toEqual(["and"]);
    expect(searchTerms('invoice* -"refund" NEAR(a b)')).toEqual(["invoice", "refund", "near", "a", "b"]);
    expect(searchTerms("Größe café")).toEqual(["größe", "café"]);
    // Combining marks belong to their word (the databases' tokenizers keep them together).
    expect(searchTerms("ส่งของ हिन्दी")).toEqual(["ส่งของ", "हिन्दी"]);
    expect(fts5Match(["and", 'x"y'])).toBe('"and" "x""y"');
  });

  it("escapes the text and marks only the database's hits", () => {
    expect(snippetMarkup(`<img src=x onerror=alert(1)> ${HIT_START}refund${HIT_END} & more`)).toBe(
      "&lt;img src=x onerror=alert(1)&gt; <mark>refund</mark> &amp; more",
    );
    expect(snippetMarkup(`${HIT_START}open`)).toBe("<mark>open</mark>");
    expect(snippetMarkup(`stray${HIT_END}`)).toBe("stray");
  });

  it("searches scripts written without spaces as substrings, literally", () => {
    expect(splitTerms(["refund", "東京", "ส่ง", "서울", "café"])).toEqual({ words: ["refund", "café"], substrings: ["東京", "ส่ง", "서울"] });
    expect(likeContaining("50%_off\\")).toBe("%50\\%\\_off\\\\%");
    const snippet = substringSnippet(`${"x".repeat(200)} 明日東京に行きます。東京駅で会いましょう ${"y".repeat(200)}`, ["東京"]);
    expect(snippet.startsWith("…") && snippet.endsWith("…")).toBe(true);
    expect(snippetMarkup(snippet)).toContain("明日<mark>東京</mark>に行きます。<mark>東京</mark>駅");
    expect(snippetMarkup(substringSnippet("Order iPhone用ケース", ["iphone用"]))).toBe("Order <mark>iPhone用</mark>ケース");
  });
});

describe.each(databases)("GET /api/v1/search ($name)", ({ open }) => {
  const app = useRoutedApp({ open, token: TOKEN });

  const search = async (q: string, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) => {
    const response = await searchRoute(new Request(`http://localhost/api/v1/search?q=${encodeURIComponent(q)}`, { headers }), {
      params: Promise.resolve({}),
    });
    return { status: response.status, body: (await response.json()) as { results: Result[] } };
  };

  it("finds what was said, best match first, with a marked, escaped snippet", async () => {
    await app.t.post(update({ chat: group, text: "the weather is nice today" }));
    await app.t.post(update({ chat: group, text: "my refund for the invoice has not arrived" }));
    await app.t.post(update({ chat: group, text: "refund refund refund: <b>still</b> waiting for the refund" }));
    await app.t.post(update({ text: "an unrelated private note" }));
    const best = await app.t.db.prisma.message.findFirstOrThrow({ where: { text: { startsWith: "refund refund" } } });
    const other = await app.t.db.prisma.message.findFirstOrThrow({ where: { text: { startsWith: "my refund" } } });

    const { status, body } = await search("Refund");
    expect(status).toBe(200);
    expect(body.results.map((r) => r.messageId)).toEqual([best.id, other.id]);
    expect(body.results[0]).toMatchObject({ conversationId: best.conversationId, sentAt: best.sentAt.toISOString() });
    expect(body.results[0]!.snippet).toContain("<mark>refund</mark>");
    // The message's own markup never survives as markup (SQLite escapes it; PostgreSQL's parser drops tags).
    expect(body.results[0]!.snippet).toContain("still");
    expect(body.results[0]!.snippet.replace(/<\/?mark>/g, "")).not.toMatch(/[<>]/);
    // Every word must match.
    expect((await search("refund invoice")).body.results.map((r) => r.messageId)).toEqual([other.id]);
  });

  it("follows edits: the new text is found, the old one no longer", async () => {
    await app.t.post(update({ chat: group, messageId: 501, text: "first draft with a typo" }));
    await app.t.post(update({ chat: group, messageId: 501, text: "final wording", edited: true }));
    expect((await search("typo")).body.results).toEqual([]);
    expect((await search("wording")).body.results).toHaveLength(1);
  });

  it("an unsent message stays findable for operators, marked unsent (as the timeline keeps it)", async () => {
    await app.t.post(update({ chat: group, messageId: 601, text: "my card number was wrongly posted" }));
    const message = await app.t.db.prisma.message.findFirstOrThrow();
    expect((await search("card")).body.results[0]).toMatchObject({ messageId: message.id, deletedAt: null });
    const at = new Date("2026-11-23T10:00:00.000Z");
    await app.t.db.prisma.message.update({ where: { id: message.id }, data: { deletedAt: at } });
    expect((await search("card")).body.results[0]).toMatchObject({ messageId: message.id, deletedAt: at.toISOString() });
  });

  it("words of any script separated by spaces are found; hostile text in the message stays text", async () => {
    await app.t.post(update({ chat: group, text: "配送 状況 🦘 <script>alert(1)</script> ส่งของ हिन्दी" }));
    for (const q of ["配送", "ส่งของ", "हिन्दी", "🦘 配送"]) expect((await search(q)).body.results, q).toHaveLength(1);
    // (PostgreSQL's parser reads `<script>` as a tag, not a word: only SQLite finds "script".)
    expect((await search("配送")).body.results[0]!.snippet.replace(/<\/?mark>/g, "")).not.toMatch(/[<>]/);
  });

  it("finds a word inside Japanese, Chinese, Thai and Korean text written without spaces, newest first, marked", async () => {
    const japanese = "明日の会議は東京本社で行います。よろしくお願いします";
    const chinese = "我的订单还没有发货，请帮我查一下物流信息";
    const thai = "สวัสดีครับ ผมอยากสอบถามเรื่องการส่งของครับ";
    const korean = "서울에서 주문했는데 배송이 아직 안 왔어요";
    for (const [i, text] of [japanese, chinese, thai, korean].entries())
      await app.t.post(update({ chat: group, messageId: 700 + i, text }));
    await app.t.post(update({ chat: group, messageId: 710, text: "東京 office moved: see the refund policy" }));
    const found = async (q: string) => (await search(q)).body.results.map((r) => r.snippet.replace(/<\/?mark>/g, ""));
    expect(await found("東京")).toEqual(["東京 office moved: see the refund policy", japanese]);
    expect((await search("会議")).body.results[0]!.snippet).toContain("<mark>会議</mark>");
    expect(await found("物流")).toEqual([chinese]);
    expect((await search("物流")).body.results[0]).toMatchObject({ senderKind: "user", senderName: expect.any(String) });
    expect(await found("การส่งของ")).toEqual([thai]);
    expect(await found("서울")).toEqual([korean]);
    expect(await found("배송")).toEqual([korean]);
    // Mixed with a word: both must match.
    expect(await found("東京 refund")).toEqual(["東京 office moved: see the refund policy"]);
    expect(await found("東京 invoice")).toEqual([]);
    expect(await found("大阪")).toEqual([]);
    // A substring, in order: not the same characters anywhere.
    expect(await found("京東")).toEqual([]);
  });

  it.each([
    '"',
    "AND(",
    "NEAR(",
    "*",
    "-",
    "a OR",
    '""""',
    "(",
    ")",
    "^",
    "col:val",
    "\u0000",
    '\'; DROP TABLE "Message"; --',
    "x".repeat(500),
  ])("a hostile query %j is a 200, never a 500", async (q) => {
    await app.t.post(update({ chat: group, text: "and near or not" }));
    const { status, body } = await search(q);
    expect(status).toBe(200);
    expect(Array.isArray(body.results)).toBe(true);
    expect(await app.t.db.prisma.message.count()).toBe(1);
  });

  it("needs a session or the API token; an over-long query is a 400", async () => {
    expect((await search("refund", {})).status).toBe(401);
    expect((await search("x".repeat(501))).status).toBe(400);
  });
});
