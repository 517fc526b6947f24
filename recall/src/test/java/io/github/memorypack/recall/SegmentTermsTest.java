package io.github.memorypack.recall;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.List;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.Term;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.junit.jupiter.api.Test;

/** The cached words of each segment give what Lucene's document frequency gives, and leave with their segment. */
class SegmentTermsTest {

    private static final List<String> TEXTS = List.of("basketball on Sunday", "my ankle hurts", "basketball again",
            "Dublin is rainy", "the ankle is better", "no basketball this week");

    @Test
    void should_count_each_word_as_lucene_does_over_segments_and_deletions_and_forget_closed_segments() throws IOException {
        int before = SegmentTerms.cached();
        try (ByteBuffersDirectory directory = new ByteBuffersDirectory()) {
            try (IndexWriter writer = new IndexWriter(directory,
                    new IndexWriterConfig(new RecallAnalyzer()).setMergePolicy(NoMergePolicy.INSTANCE))) {
                for (int i = 0; i < TEXTS.size(); i++) {
                    Document document = new Document();
                    document.add(new StringField("id", Integer.toString(i), Field.Store.NO));
                    document.add(new TextField(MessageDocuments.TEXT, TEXTS.get(i), Field.Store.NO));
                    writer.addDocument(document);
                    if (i % 2 == 1) {
                        writer.commit(); // three segments
                    }
                }
                writer.deleteDocuments(new Term("id", "2"));
                writer.commit();
            }
            try (DirectoryReader reader = DirectoryReader.open(directory)) {
                assertThat(reader.leaves()).hasSize(3);
                for (String word : List.of("basketball", "ankle", "hurt", "dublin", "sunday", "football")) {
                    assertThat(SegmentTerms.docFreq(reader, word)).as(word)
                            .isEqualTo(reader.docFreq(new Term(MessageDocuments.TEXT, word)));
                }
                assertThat(SegmentTerms.docFreq(reader, "basketball")).isEqualTo(3);
                assertThat(SegmentTerms.docFreq(reader, "football")).isZero();
                assertThat(SegmentTerms.cached()).isEqualTo(before + 3);
            }
        }
        assertThat(SegmentTerms.cached()).isEqualTo(before);
    }
}
