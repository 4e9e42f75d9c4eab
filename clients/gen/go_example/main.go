// Command go_example plays the opening of a Ticket to Ride: Europe game with the Go code that
// clients/gen/buf.gen.go.yaml generates (package tabletopv1), as a Go backend or CLI would.
//
// Usage: go_example host:port. It prints one key=value line per step, for tests/clients/test_buf_gen_targets.py:
// create, legal actions, act (a retried request id applies once), an out-of-turn move refused with its
// reason (read from the google.rpc.ErrorInfo in the status details), and a watch from version 0.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	tabletopv1 "tabletop.dev/clients/go/tabletop/v1"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

func main() {
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(target string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := grpc.DialContext(ctx, target, grpc.WithInsecure(), grpc.WithBlock())
	if err != nil {
		return err
	}
	defer conn.Close()
	client := tabletopv1.NewGameServiceClient(conn)
	seed := uint64(42)
	created, err := client.CreateGame(ctx, &tabletopv1.CreateGameRequest{
		Ruleset: "ttr-europe", SeatCount: 2, DisplayNames: []string{"ann", "bob"}, Seed: &seed})
	if err != nil {
		return err
	}
	name := created.GetGame().GetName()
	fmt.Printf("created=%s status=%s\n", name, created.GetGame().GetStatus())
	var version int64
	for _, credential := range created.GetCredentials() {
		asSeat := seat(ctx, credential.GetPlayerToken())
		legal, err := client.ListLegalActions(asSeat, &tabletopv1.ListLegalActionsRequest{Name: name})
		if err != nil {
			return err
		}
		request := &tabletopv1.SubmitActionRequest{Name: name, Action: legal.GetActions()[0],
			RequestId: fmt.Sprintf("go-example-%s-%d", name, credential.GetSeat())}
		first, err := client.SubmitAction(asSeat, request)
		if err != nil {
			return err
		}
		again, err := client.SubmitAction(asSeat, request) // a retry: answered once, applied once
		if err != nil {
			return err
		}
		version = first.GetGame().GetVersion()
		fmt.Printf("acted=%d version=%d retry_version=%d\n", credential.GetSeat(), version, again.GetGame().GetVersion())
	}
	game, err := client.GetGame(ctx, &tabletopv1.GetGameRequest{Name: name})
	if err != nil {
		return err
	}
	waiting := 1 - game.GetView().GetTtrEurope().GetCurrentSeat()
	draw := &tabletopv1.Action{Game: &tabletopv1.Action_TtrEurope{TtrEurope: &tabletopv1.TtrEuropeAction{
		Kind: &tabletopv1.TtrEuropeAction_DrawTrainCard{DrawTrainCard: &tabletopv1.TtrDrawTrainCard{}}}}}
	_, err = client.SubmitAction(seat(ctx, created.GetCredentials()[waiting].GetPlayerToken()),
		&tabletopv1.SubmitActionRequest{Name: name, Action: draw})
	fmt.Printf("error=%s reason=%s\n", status.Code(err), reason(err))
	return watch(ctx, client, name, version)
}

// seat is ctx carrying the seat's token, as every call for that seat must.
func seat(ctx context.Context, token string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
}

// reason is the stable UPPER_SNAKE reason of the server's ErrorInfo, or "" without one.
func reason(err error) string {
	for _, detail := range status.Convert(err).Details() {
		if info, ok := detail.(*errdetails.ErrorInfo); ok {
			return info.GetReason()
		}
	}
	return ""
}

func watch(ctx context.Context, client tabletopv1.GameServiceClient, name string, version int64) error {
	stream, err := client.WatchGame(ctx, &tabletopv1.WatchGameRequest{Name: name, FromVersion: 0})
	if err != nil {
		return err
	}
	seen := ""
	for {
		message, err := stream.Recv()
		if err != nil {
			return err
		}
		seen += fmt.Sprintf(",%d", message.GetVersion())
		if message.GetVersion() >= version {
			fmt.Printf("watched=%s\n", seen[1:])
			return nil
		}
	}
}
