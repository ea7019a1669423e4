// Apache Lucene 8 (Debian's liblucene8-java) as the benchmark's peer: EnglishAnalyzer, BM25Similarity
// (k1 1.2, b 0.75, as our engine), one text field holding the title three times and the content
// (our engine's title weight 3), the publication time as a LongPoint for the window filters.
//
//   java -cp <lucene jars> bench/lucene/LuceneBench.java build <index dir> <docs.tsv>
//   java -cp <lucene jars> bench/lucene/LuceneBench.java serve <index dir> <queries.tsv>
//
// docs.tsv: published_ms \t title \t content. queries.tsv: cell \t from_ms \t to_ms \t query (from/to
// empty: no filter). Prints one JSON object per line (a query cell's with each query's latency, in order).
// serve keeps the index open and times the cell named by each line of stdin (until EOF), so that a
// caller can interleave these passes with another engine's.
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import org.apache.lucene.analysis.*;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.document.*;
import org.apache.lucene.index.*;
import org.apache.lucene.search.*;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.*;

public class LuceneBench {
  public static void main(String[] args) throws Exception {
    if (args[0].equals("build")) build(Paths.get(args[1]), Paths.get(args[2]));
    else if (args[0].equals("serve")) serve(Paths.get(args[1]), Paths.get(args[2]));
    else throw new IllegalArgumentException("build or serve");
  }

  static void build(Path dir, Path docs) throws Exception {
    long t0 = System.nanoTime();
    IndexWriterConfig cfg = new IndexWriterConfig(new EnglishAnalyzer());
    cfg.setSimilarity(new BM25Similarity(1.2f, 0.75f));
    cfg.setRAMBufferSizeMB(256);
    cfg.setOpenMode(IndexWriterConfig.OpenMode.CREATE);
    long n = 0;
    try (IndexWriter w = new IndexWriter(FSDirectory.open(dir), cfg);
         BufferedReader r = Files.newBufferedReader(docs, StandardCharsets.UTF_8)) {
      String line;
      while ((line = r.readLine()) != null) {
        String[] f = line.split("\t", 3);
        Document d = new Document();
        d.add(new LongPoint("published", Long.parseLong(f[0])));
        d.add(new TextField("text", f[1] + " " + f[1] + " " + f[1] + " " + f[2], Field.Store.NO));
        w.addDocument(d);
        n++;
      }
      w.forceMerge(1);
    }
    System.out.println("{\"docs\":" + n + ",\"build_s\":" + (System.nanoTime() - t0) / 1e9 + "}");
  }

  static Query parse(Analyzer a, String text, String from, String to) throws IOException {
    BooleanQuery.Builder b = new BooleanQuery.Builder();
    Set<String> seen = new HashSet<>();
    try (TokenStream ts = a.tokenStream("text", text)) {
      CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
      ts.reset();
      while (ts.incrementToken()) {
        String t = term.toString();
        if (seen.add(t)) b.add(new TermQuery(new Term("text", t)), BooleanClause.Occur.SHOULD);
      }
      ts.end();
    }
    if (!from.isEmpty()) b.add(LongPoint.newRangeQuery("published", Long.parseLong(from), Long.parseLong(to)), BooleanClause.Occur.FILTER);
    return b.build();
  }

  static void serve(Path dir, Path queries) throws Exception {
    Analyzer a = new EnglishAnalyzer();
    Map<String, List<String[]>> cells = new LinkedHashMap<>();
    for (String line : Files.readAllLines(queries, StandardCharsets.UTF_8)) {
      String[] f = line.split("\t", 4);
      cells.computeIfAbsent(f[0], k -> new ArrayList<>()).add(f);
    }
    try (DirectoryReader reader = DirectoryReader.open(FSDirectory.open(dir))) {
      IndexSearcher s = new IndexSearcher(reader);
      s.setSimilarity(new BM25Similarity(1.2f, 0.75f));
      s.setQueryCache(null);
      Set<String> warm = new HashSet<>();
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      String cell;
      while ((cell = in.readLine()) != null) {
        if (!cells.containsKey(cell)) throw new IllegalArgumentException("no such cell: " + cell);
        System.out.println(timeCell(s, a, cell, cells.get(cell), warm.add(cell)));
        System.out.flush();
      }
    }
  }

  /** One timed pass over a cell's queries, after a warm-up pass (for the JIT) the first time. */
  static String timeCell(IndexSearcher s, Analyzer a, String cell, List<String[]> qs, boolean warmUp) throws IOException {
    if (warmUp) for (String[] q : qs) s.search(parse(a, q[3], q[1], q[2]), 10);
    double[] lat = new double[qs.size()];
    long start = System.nanoTime();
    for (int i = 0; i < qs.size(); i++) {
      String[] q = qs.get(i);
      long t = System.nanoTime();
      s.search(parse(a, q[3], q[1], q[2]), 10);
      lat[i] = (System.nanoTime() - t) / 1e6;
    }
    double total = (System.nanoTime() - start) / 1e6;
    StringBuilder raw = new StringBuilder();
    for (int i = 0; i < lat.length; i++) raw.append(i == 0 ? "" : ",").append(lat[i]);
    Arrays.sort(lat);
    return "{\"cell\":\"" + cell + "\",\"p50\":" + pct(lat, 50) + ",\"p99\":" + pct(lat, 99)
        + ",\"qps\":" + (qs.size() / total * 1000) + ",\"total_ms\":" + total + ",\"latencies\":[" + raw + "]}";
  }

  static double pct(double[] sorted, double p) {
    int i = (int) Math.min(sorted.length - 1, Math.max(0, Math.ceil(p / 100 * sorted.length) - 1));
    return sorted[i];
  }
}
