package flow;

import java.io.IOException;
import org.openapitools.client.ApiClient;
import org.openapitools.client.model.ErrorResponse;

/**
 * What differs between the java libraries for ../Flow.java: here okhttp-gson, the generator's
 * default, whose models refuse a JSON field the document does not declare.
 */
final class Clients {
  static final String LIBRARY = "okhttp-gson";

  private Clients() {}

  static ApiClient client(String key) {
    ApiClient client = new ApiClient();
    client.setBasePath(System.getenv("REWIND_URL"));
    client.setBearerToken(key);
    return client;
  }

  /** A refusal's body, typed by the generated model (validated as strictly as an answer). */
  static ErrorResponse error(String body) throws IOException {
    return ErrorResponse.fromJson(body);
  }
}
