package flow;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.openapitools.client.ApiClient;
import org.openapitools.client.ApiException;
import org.openapitools.client.api.KeysApi;
import org.openapitools.client.api.SessionsApi;
import org.openapitools.client.api.StepsApi;
import org.openapitools.client.api.TimeTravelApi;
import org.openapitools.client.model.*;

/**
 * The flow every generated client runs (see ../run.sh), here with the java clients (native and
 * okhttp-gson): copied into the generated project with the library's Clients.java (java-native/,
 * java-okhttp-gson/: how that library authenticates and reads a refusal) and compiled with it. Reads REWIND_URL and REWIND_ADMIN_KEY;
 * throws (exit 1) on the first thing that is not as documented.
 */
public final class Flow {
  private static void check(boolean condition, String what) {
    if (!condition) throw new AssertionError("flow (java, " + Clients.LIBRARY + "): " + what);
  }

  /** The refusal a call answered with, typed by the generated model. */
  private interface Call {
    void run() throws ApiException;
  }

  private static ErrorResponse refusal(Call call, int status) throws IOException {
    try {
      call.run();
    } catch (ApiException error) {
      check(error.getCode() == status, "expected " + status + ", got " + error.getCode() + ": " + error.getResponseBody());
      return Clients.error(error.getResponseBody());
    }
    throw new AssertionError("flow (java, " + Clients.LIBRARY + "): the call succeeded but should have been refused");
  }

  public static void main(String[] args) throws Exception {
    // A compensator: answers every POST, and remembers what it was asked.
    List<String> calls = new CopyOnWriteArrayList<>();
    HttpServer compensator = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    compensator.createContext("/", exchange -> {
      exchange.getRequestBody().readAllBytes();
      calls.add(exchange.getRequestURI().getPath() + " key=" + exchange.getRequestHeaders().getFirst("Idempotency-Key"));
      byte[] body = "{\"cancelled\":true}".getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    compensator.start();
    String compensatorUrl = "http://127.0.0.1:" + compensator.getAddress().getPort();
    try {
      // An admin key makes a write key; the flow runs with that one.
      KeysApi admin = new KeysApi(Clients.client(System.getenv("REWIND_ADMIN_KEY")));
      ApiKeySecret created = admin.createApiKey(
          new CreateApiKeyDto().name("openapi-clients flow (java, " + Clients.LIBRARY + ")").scopes(List.of(CreateApiKeyDto.ScopesEnum.WRITE, CreateApiKeyDto.ScopesEnum.READ)));
      check(created.getKey().startsWith("rwd_") && created.getRecord().getScopes().contains(ApiKey.ScopesEnum.WRITE), "createApiKey answers the secret and the record");
      ApiClient client = Clients.client(created.getKey());
      SessionsApi sessions = new SessionsApi(client);
      StepsApi steps = new StepsApi(client);
      TimeTravelApi timeTravel = new TimeTravelApi(client);

      String id = "flow-java-" + Long.toString(System.currentTimeMillis(), 36);
      check(sessions.startSession(new StartSessionDto().sessionId(id), null, null, null).getSessionId().equals(id), "startSession");
      WriteResult asked = steps.recordMessage(id, new RecordMessageDto().role(RecordMessageDto.RoleEnum.USER).content("Book a hotel in Lisbon."), null, null, null);
      steps.createCheckpoint(id, new CreateCheckpointDto().label("before-booking"), null, null, null);
      WriteResult batch = steps.recordSteps(id, new RecordStepsDto().steps(List.of(
          new Step(new MessageStepDto().kind(MessageStepDto.KindEnum.MESSAGE).role(MessageStepDto.RoleEnum.AGENT).content("Booking the Alfama Inn.")),
          new Step(new ToolCallStepDto().kind(ToolCallStepDto.KindEnum.TOOL_CALL).toolCallId("hotel-1").tool("book_hotel").input(Map.of("city", "Lisbon"))
              .effect(new EffectDto().kind(EffectDto.KindEnum.COMPENSABLE)
                  .compensation(new CompensationDto().channel(CompensationDto.ChannelEnum.HTTP).target(compensatorUrl + "/bookings/{{output.bookingId}}/cancel"))
                  .retry(new RetryPolicyDto().maxAttempts(3).baseDelayMs(10).maxDelayMs(50).timeoutMs(5000)))),
          new Step(new ToolResultStepDto().kind(ToolResultStepDto.KindEnum.TOOL_RESULT).toolCallId("hotel-1").output(Map.of("bookingId", "B-42"))),
          new Step(new MemoryStepDto().kind(MemoryStepDto.KindEnum.MEMORY).key("hotel").value("B-42")))), null, null, null);
      check(batch.getEvents().size() == 4, "recordSteps wrote 4 events, not " + batch.getEvents().size());
      SessionState now = sessions.getSession(id);
      check("B-42".equals(now.getMemory().get("hotel")), "the memory step kept its value");
      ToolCall call = now.getToolCalls().get(0);
      check(call.getEffect().getKind() == Effect.KindEnum.COMPENSABLE && call.getStatus() == ToolCall.StatusEnum.SUCCEEDED,
          "the tool-call step kept its effect, the result step its output");

      SessionState past = sessions.getSessionState(id, asked.getStepVersion(), null);
      check(past.getToolCalls().isEmpty() && !past.getMemory().containsKey("hotel") && past.getConversation().getTurns().size() == 1, "state at a past version");

      HeadMoveAnswer plan = timeTravel.undo(id, new UndoDto().dryRun(true), null, null, null);
      check(plan.getActualInstance() instanceof DryRun && plan.getDryRun().getPlan().getKind() == HeadMovePlan.KindEnum.UNDO, "an undo dry run answers a plan");
      HeadMoveAnswer undone = timeTravel.undo(id, new UndoDto(), null, null, null);
      check(undone.getActualInstance() instanceof HeadMoveResult && undone.getHeadMoveResult().getHead() < batch.getHead(), "the undo moved the head back");
      check(!sessions.getSession(id).getMemory().containsKey("hotel"), "the undo removed the memory write");

      HeadMoveResult rolledBack = timeTravel.rollback(id, new RollbackDto().toCheckpoint("before-booking").waitMs(10000), null, null, null).getHeadMoveResult();
      check(rolledBack.getRollback() != null && rolledBack.getRollback().getStatus() == Rollback.StatusEnum.COMPLETED, "the rollback to the checkpoint completed");
      check(calls.size() == 1 && calls.get(0).startsWith("/bookings/B-42/cancel key=") && !calls.get(0).endsWith("key=null"),
          "the compensator was called once with an Idempotency-Key: " + calls);

      ErrorResponse redo = refusal(() -> timeTravel.redo(id, new RedoDto(), null, null, null), 409);
      check(redo.getError().getCode() == ErrorResponseError.CodeEnum.COMPENSATED_EFFECTS_ON_PATH, "a redo over a compensated effect is refused: " + redo);

      Context context = sessions.getContext(id, null, null, null, null, null);
      check(context.getItems().size() == 1 && context.getItems().get(0).getActualInstance() instanceof ContextMessage
          && context.getItems().get(0).getContextMessage().getContent().equals("Book a hotel in Lisbon."), "the context is the head path");
      Timeline timeline = sessions.getTimeline(id, null, null);
      check(timeline.getHead().equals(rolledBack.getHead()) && timeline.getRollbacks().size() == 2 && timeline.getNodes().size() >= 6, "the timeline shows both moves");

      ErrorResponse missing = refusal(() -> sessions.getSession(id + "-missing"), 404);
      check(missing.getError().getCode() == ErrorResponseError.CodeEnum.SESSION_NOT_FOUND, "an unknown session is a typed 404: " + missing);
      ErrorResponse conflict = refusal(() -> sessions.startSession(new StartSessionDto().sessionId(id), null, null, null), 409);
      check(conflict.getError().getCode() == ErrorResponseError.CodeEnum.SESSION_EXISTS, "a second start is a typed 409: " + conflict);
      System.out.println("flow (java, " + Clients.LIBRARY + "): passed");
    } finally {
      compensator.stop(0);
    }
  }
}
