// Reference BM25 rankings and analyses from real Lucene (8.x, Debian's liblucene8-java), to pin the
// TypeScript implementation against. See README.md beside this file for the exact commands.
//
//   java LuceneBm25Reference.java rank CORPUS.jsonl QUERIES.txt K1 B TOPK  > ranking JSON
//   java LuceneBm25Reference.java analyze TEXTS.txt                      > analysis JSON
//
// CORPUS.jsonl: Search-R1 lines {"id": ..., "contents": ...}; QUERIES.txt / TEXTS.txt: one per line.
// Queries are built like Anserini's BagOfWordsQueryGenerator: one SHOULD TermQuery per distinct
// analyzed term, boosted by its count in the query.
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.ByteBuffersDirectory;

public class LuceneBm25Reference {
  public static void main(String[] args) throws Exception {
    Analyzer analyzer = new EnglishAnalyzer();
    if (args[0].equals("analyze")) {
      List<String> texts = Files.readAllLines(Paths.get(args[1]), StandardCharsets.UTF_8);
      StringBuilder out = new StringBuilder("[\n");
      for (int i = 0; i < texts.size(); i++) {
        out.append("  {\"text\": ").append(quote(texts.get(i))).append(", \"terms\": [");
        List<String> terms = analyze(analyzer, texts.get(i));
        for (int j = 0; j < terms.size(); j++) out.append(j > 0 ? ", " : "").append(quote(terms.get(j)));
        out.append("]}").append(i + 1 < texts.size() ? ",\n" : "\n");
      }
      System.out.print(out.append("]\n"));
      return;
    }
    String corpus = args[1];
    List<String> queries = Files.readAllLines(Paths.get(args[2]), StandardCharsets.UTF_8);
    float k1 = Float.parseFloat(args[3]);
    float b = Float.parseFloat(args[4]);
    int topk = Integer.parseInt(args[5]);
    BM25Similarity similarity = new BM25Similarity(k1, b);
    ByteBuffersDirectory dir = new ByteBuffersDirectory();
    IndexWriterConfig config = new IndexWriterConfig(analyzer).setSimilarity(similarity);
    try (IndexWriter writer = new IndexWriter(dir, config)) {
      for (String line : Files.readAllLines(Paths.get(corpus), StandardCharsets.UTF_8)) {
        if (line.isBlank()) continue;
        Map<String, String> record = parseFlatJsonObject(line);
        Document doc = new Document();
        doc.add(new StoredField("id", record.get("id")));
        doc.add(new TextField("contents", record.get("contents"), Field.Store.NO));
        writer.addDocument(doc);
      }
      writer.forceMerge(1);
    }
    IndexSearcher searcher = new IndexSearcher(DirectoryReader.open(dir));
    searcher.setSimilarity(similarity);
    StringBuilder out = new StringBuilder();
    out.append("{\n  \"k1\": ").append(k1).append(",\n  \"b\": ").append(b).append(",\n  \"queries\": [\n");
    for (int q = 0; q < queries.size(); q++) {
      Map<String, Integer> counts = new LinkedHashMap<>();
      for (String term : analyze(analyzer, queries.get(q))) counts.merge(term, 1, Integer::sum);
      BooleanQuery.Builder builder = new BooleanQuery.Builder();
      for (Map.Entry<String, Integer> e : counts.entrySet()) {
        Query tq = new TermQuery(new Term("contents", e.getKey()));
        builder.add(new BoostQuery(tq, e.getValue()), BooleanClause.Occur.SHOULD);
      }
      TopDocs top = searcher.search(builder.build(), topk);
      out.append("    {\"query\": ").append(quote(queries.get(q))).append(", \"hits\": [");
      for (int i = 0; i < top.scoreDocs.length; i++) {
        ScoreDoc sd = top.scoreDocs[i];
        String id = searcher.doc(sd.doc).get("id");
        out.append(i > 0 ? ", " : "").append("{\"id\": ").append(quote(id)).append(", \"score\": ").append(sd.score).append("}");
      }
      out.append("]}").append(q + 1 < queries.size() ? ",\n" : "\n");
    }
    System.out.print(out.append("  ]\n}\n"));
  }

  static List<String> analyze(Analyzer analyzer, String text) throws IOException {
    List<String> terms = new ArrayList<>();
    try (TokenStream ts = analyzer.tokenStream("contents", text)) {
      CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
      ts.reset();
      while (ts.incrementToken()) terms.add(term.toString());
      ts.end();
    }
    return terms;
  }

  /** Parses one flat JSON object of string values (enough for Search-R1 corpus lines). */
  static Map<String, String> parseFlatJsonObject(String s) {
    Map<String, String> map = new LinkedHashMap<>();
    int[] pos = {s.indexOf('{') + 1};
    while (true) {
      skipWs(s, pos);
      if (s.charAt(pos[0]) == '}') return map;
      String key = readString(s, pos);
      skipWs(s, pos);
      pos[0]++; // ':'
      skipWs(s, pos);
      String value = readString(s, pos);
      map.put(key, value);
      skipWs(s, pos);
      if (s.charAt(pos[0]) == ',') pos[0]++;
    }
  }

  static void skipWs(String s, int[] pos) {
    while (Character.isWhitespace(s.charAt(pos[0]))) pos[0]++;
  }

  static String readString(String s, int[] pos) {
    if (s.charAt(pos[0]) != '"') throw new IllegalArgumentException("expected a string at " + pos[0] + ": " + s);
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
      else if (c == '\n') sb.append("\\n");
      else if (c < 0x20 || c > 0x7e) sb.append(String.format("\\u%04x", (int) c));
      else sb.append(c);
    }
    return sb.append('"').toString();
  }
}
