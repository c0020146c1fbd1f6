import { SearchResults } from "./search-results";

export default async function SearchPage({ searchParams }: { searchParams: Promise<{ q?: string | string[] }> }) {
  const { q } = await searchParams;
  const text = Array.isArray(q) ? (q[0] ?? "") : (q ?? "");
  // Keyed by the query: a new search starts from its own text.
  return <SearchResults key={text} initial={text} />;
}
