// Lucene's side of the search benchmark (test/bench/search.ts runs it on the same corpus and queries):
// builds a Lucene index of a Search-R1 JSONL corpus with EnglishAnalyzer + BM25Similarity(k1, b),
// force-merged to one segment in corpus order, then runs each query as Anserini's bag-of-words query
// (one SHOULD TermQuery per distinct analyzed term, boosted by its count) for the top k, one thread,
// Lucene's default top-k search (dynamic pruning on). Writes JSON: build CPU and size, per-query CPU,
// latencies, and each query's hits (stored ids and scores).
//
//   java -cp lucene-core-9.12.0.jar:lucene-analysis-common-9.12.0.jar LuceneSearchBench.java \
//     CORPUS.jsonl QUERIES.txt INDEX_DIR K1 B TOPK OUT.json
import java.io.BufferedReader;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LogByteSizeMergePolicy;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.FSDirectory;

public class LuceneSearchBench {
  static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  public static void main(String[] args) throws Exception {
    Path corpus = Paths.get(args[0]);
    List<String> queries = Files.readAllLines(Paths.get(args[1]), StandardCharsets.UTF_8);
    Path indexDir = Paths.get(args[2]);
    float k1 = Float.parseFloat(args[3]);
    float b = Float.parseFloat(args[4]);
    int topk = Integer.parseInt(args[5]);
    Path out = Paths.get(args[6]);
    Analyzer analyzer = new EnglishAnalyzer();
    BM25Similarity similarity = new BM25Similarity(k1, b);

    long cpu0 = processCpuNanos();
    long wall0 = System.nanoTime();
    try (FSDirectory dir = FSDirectory.open(indexDir)) {
      IndexWriterConfig config = new IndexWriterConfig(analyzer)
          .setSimilarity(similarity)
          .setRAMBufferSizeMB(256)
          .setMergePolicy(new LogByteSizeMergePolicy()); // merges adjacent segments: doc ids keep corpus order
      try (IndexWriter writer = new IndexWriter(dir, config);
          BufferedReader reader = Files.newBufferedReader(corpus, StandardCharsets.UTF_8)) {
        for (String line = reader.readLine(); line != null; line = reader.readLine()) {
          if (line.isBlank()) continue;
          Map<String, String> record = LuceneJson.parseFlatObject(line);
          Document doc = new Document();
          doc.add(new StoredField("id", record.get("id")));
          doc.add(new TextField("contents", record.get("contents"), Field.Store.NO));
          writer.addDocument(doc);
        }
        writer.forceMerge(1);
      }
    }
    double buildCpuS = (processCpuNanos() - cpu0) / 1e9;
    double buildWallS = (System.nanoTime() - wall0) / 1e9;
    long indexBytes;
    try (Stream<Path> files = Files.list(indexDir)) {
      indexBytes = files.mapToLong(p -> p.toFile().length()).sum();
    }

    try (FSDirectory dir = FSDirectory.open(indexDir); DirectoryReader reader = DirectoryReader.open(dir)) {
      IndexSearcher searcher = new IndexSearcher(reader);
      searcher.setSimilarity(similarity);
      searcher.setQueryCache(null); // every query is scored, as ours are
      int warmUpPasses = Math.max(2, (int) Math.ceil(6000.0 / Math.max(1, queries.size())));
      for (int pass = 0; pass < warmUpPasses; pass++) {
        for (String q : queries) searcher.search(query(analyzer, q), topk); // warm-up: JIT
      }
      ThreadMXBean threads = ManagementFactory.getThreadMXBean();
      TopDocs[] results = new TopDocs[queries.size()];
      double[] latencyMs = new double[queries.size()];
      long processCpu0 = processCpuNanos();
      long threadCpu0 = threads.getCurrentThreadCpuTime();
      long started = System.nanoTime();
      for (int i = 0; i < queries.size(); i++) {
        long t0 = System.nanoTime();
        results[i] = searcher.search(query(analyzer, queries.get(i)), topk);
        latencyMs[i] = (System.nanoTime() - t0) / 1e6;
      }
      double wallS = (System.nanoTime() - started) / 1e9;
      double threadCpuMs = (threads.getCurrentThreadCpuTime() - threadCpu0) / 1e6;
      double processCpuMs = (processCpuNanos() - processCpu0) / 1e6;
      StoredFields stored = searcher.storedFields();
      StringBuilder json = new StringBuilder("{\n");
      json.append("  \"lucene\": \"").append(org.apache.lucene.util.Version.LATEST).append("\",\n");
      json.append("  \"java\": \"").append(System.getProperty("java.version")).append("\",\n");
      json.append("  \"build_cpu_s\": ").append(buildCpuS).append(",\n");
      json.append("  \"build_wall_s\": ").append(buildWallS).append(",\n");
      json.append("  \"index_bytes\": ").append(indexBytes).append(",\n");
      json.append("  \"queries\": ").append(queries.size()).append(",\n");
      json.append("  \"search_wall_s\": ").append(wallS).append(",\n");
      json.append("  \"search_thread_cpu_ms\": ").append(threadCpuMs).append(",\n");
      json.append("  \"search_process_cpu_ms\": ").append(processCpuMs).append(",\n");
      json.append("  \"latency_ms\": ").append(Arrays.toString(latencyMs)).append(",\n");
      json.append("  \"hits\": [\n");
      for (int i = 0; i < results.length; i++) {
        json.append("    [");
        for (int h = 0; h < results[i].scoreDocs.length; h++) {
          String id = stored.document(results[i].scoreDocs[h].doc).get("id");
          json.append(h > 0 ? ", " : "").append("[").append(LuceneJson.quote(id)).append(", ")
              .append(results[i].scoreDocs[h].score).append("]");
        }
        json.append(i + 1 < results.length ? "],\n" : "]\n");
      }
      json.append("  ]\n}\n");
      Files.writeString(out, json.toString(), StandardCharsets.UTF_8);
    }
  }

  static Query query(Analyzer analyzer, String text) throws java.io.IOException {
    Map<String, Integer> counts = new LinkedHashMap<>();
    try (TokenStream ts = analyzer.tokenStream("contents", text)) {
      CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
      ts.reset();
      while (ts.incrementToken()) counts.merge(term.toString(), 1, Integer::sum);
      ts.end();
    }
    BooleanQuery.Builder builder = new BooleanQuery.Builder();
    for (Map.Entry<String, Integer> e : counts.entrySet()) {
      Query tq = new TermQuery(new Term("contents", e.getKey()));
      builder.add(e.getValue() == 1 ? tq : new BoostQuery(tq, e.getValue()), BooleanClause.Occur.SHOULD);
    }
    return builder.build();
  }
}

/** Flat JSON objects of string values (Search-R1 corpus lines), and JSON string quoting. */
class LuceneJson {
  static Map<String, String> parseFlatObject(String s) {
    Map<String, String> map = new LinkedHashMap<>();
    int[] pos = {s.indexOf('{') + 1};
    while (true) {
      skipWs(s, pos);
      if (s.charAt(pos[0]) == '}') return map;
      String key = readString(s, pos);
      skipWs(s, pos);
      pos[0]++; // ':'
      skipWs(s, pos);
      map.put(key, readString(s, pos));
      skipWs(s, pos);
      if (s.charAt(pos[0]) == ',') pos[0]++;
    }
  }

  static void skipWs(String s, int[] pos) {
    while (Character.isWhitespace(s.charAt(pos[0]))) pos[0]++;
  }

  static String readString(String s, int[] pos) {
    if (s.charAt(pos[0]) != '"') throw new IllegalArgumentException("expected a string at " + pos[0]);
    StringBuilder sb = new StringBuilder();
    int i = pos[0] + 1;
    while (true) {
      char c = s.charAt(i++);
      if (c == '"') break;
      if (c != '\\') {
        sb.append(c);
        continue;
      }
      char e = s.charAt(i++);
      switch (e) {
        case 'n': sb.append('\n'); break;
        case 't': sb.append('\t'); break;
        case 'r': sb.append('\r'); break;
        case 'b': sb.append('\b'); break;
        case 'f': sb.append('\f'); break;
        case 'u': sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16)); i += 4; break;
        default: sb.append(e);
      }
    }
    pos[0] = i;
    return sb.toString();
  }

  static String quote(String s) {
    StringBuilder sb = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') sb.append('\\').append(c);
      else if (c < 0x20 || c > 0x7e) sb.append(String.format("\\u%04x", (int) c));
      else sb.append(c);
    }
    return sb.append('"').toString();
  }
}
