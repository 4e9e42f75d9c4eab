// Plays the opening of a Ticket to Ride: Europe game from Kotlin with the code clients/gen/buf.gen.kotlin.yaml
// generates (protobuf-lite messages and grpc-java stubs, package dev.tabletop.v1), as an Android app would
// (there with grpc-okhttp as the transport; here grpc-netty, which Debian ships).
//
// Usage: PlayExampleKt host:port. One key=value line per step, for tests/clients/test_kotlin_template.py:
// create, a move of each seat (a retried request id applies once), and a watch from version 0.
package dev.tabletop.example

import dev.tabletop.v1.CreateGameRequest
import dev.tabletop.v1.GameServiceGrpc
import dev.tabletop.v1.ListLegalActionsRequest
import dev.tabletop.v1.SubmitActionRequest
import dev.tabletop.v1.WatchGameRequest
import io.grpc.ManagedChannelBuilder
import io.grpc.Metadata
import io.grpc.stub.MetadataUtils
import java.util.concurrent.TimeUnit

fun main(args: Array<String>) {
    val channel = ManagedChannelBuilder.forTarget(args[0]).usePlaintext().build()
    try {
        val games = GameServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
        val created = games.createGame(CreateGameRequest.newBuilder()
            .setRuleset("ttr-europe").setSeatCount(2).addDisplayNames("ann").addDisplayNames("bob").setSeed(42)
            .build())
        val name = created.game.name
        println("created=$name status=${created.game.status}")
        var version = created.game.version
        for (credential in created.credentialsList) {
            val asSeat = games.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(bearer(credential.playerToken)))
            val action = asSeat.listLegalActions(ListLegalActionsRequest.newBuilder().setName(name).build()).getActions(0)
            val request = SubmitActionRequest.newBuilder().setName(name).setAction(action)
                .setRequestId("kotlin-example-$name-${credential.seat}").build()
            val first = asSeat.submitAction(request)
            val again = asSeat.submitAction(request)  // a retry: answered once, applied once
            version = first.game.version
            println("acted=${credential.seat} version=$version retry_version=${again.game.version}")
        }
        val seen = mutableListOf<Long>()
        val updates = games.watchGame(WatchGameRequest.newBuilder().setName(name).build())
        while (seen.lastOrNull() != version && updates.hasNext()) {
            seen.add(updates.next().version)
        }
        println("watched=${seen.joinToString(",")}")
    } finally {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS)
    }
}

private fun bearer(token: String): Metadata {
    val headers = Metadata()
    headers.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer $token")
    return headers
}
