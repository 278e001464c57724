package flow;

import java.io.IOException;
import org.openapitools.client.ApiClient;
import org.openapitools.client.model.ErrorResponse;

/** What differs between the java libraries for ../Flow.java: here the native one (java.net.http, Jackson). */
final class Clients {
  static final String LIBRARY = "native";

  private Clients() {}

  static ApiClient client(String key) {
    ApiClient client = new ApiClient();
    client.updateBaseUri(System.getenv("REWIND_URL"));
    // The native library leaves authentication to the caller: the bearer key goes on every request.
    client.setRequestInterceptor(request -> request.header("Authorization", "Bearer " + key));
    return client;
  }

  /** A refusal's body, typed by the generated model. */
  static ErrorResponse error(String body) throws IOException {
    return new ApiClient().getObjectMapper().readValue(body, ErrorResponse.class);
  }
}
